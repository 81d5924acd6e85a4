"""The C side of DLPack, declared with ``ctypes``: structures, codes and the capsule API.

The structures follow ``dlpack.h`` (DLPack 1.1). The ``ctypes.Structure`` classes are the
readable truth about the layout; the export and import paths read and write the same bytes
with precompiled ``struct.Struct`` formats (one call instead of a dozen field accesses),
and this module checks at import that both describe the same offsets.

>>> ctypes.sizeof(DLTensor), ctypes.sizeof(DLManagedTensor), ctypes.sizeof(DLManagedTensorVersioned)
(48, 64, 80)
>>> DLManagedTensorVersioned.dl_tensor.offset
32
"""

from __future__ import annotations

import ctypes
import struct
import sys

__all__ = [
    "CAPSULE_DESTRUCTOR",
    "DLDataType",
    "DLDevice",
    "DLManagedTensor",
    "DLManagedTensorVersioned",
    "DLPackVersion",
    "DLTensor",
    "DLPACK_MAJOR",
    "DLPACK_MINOR",
    "FLAG_IS_COPIED",
    "FLAG_READ_ONLY",
    "MANAGED_DELETER",
]

DLPACK_MAJOR, DLPACK_MINOR = 1, 1  # the header version these declarations follow

# DLDeviceType values ember meets; host-pinned memory is plain CPU memory to a CPU consumer.
kDLCPU, kDLCUDA, kDLCUDAHost, kDLROCMHost = 1, 2, 3, 11
HOST_DEVICE_TYPES = frozenset((kDLCPU, kDLCUDAHost, kDLROCMHost))
DEVICE_NAMES = {
    1: "kDLCPU", 2: "kDLCUDA", 3: "kDLCUDAHost", 4: "kDLOpenCL", 7: "kDLVulkan", 8: "kDLMetal",
    9: "kDLVPI", 10: "kDLROCM", 11: "kDLROCMHost", 12: "kDLExtDev", 13: "kDLCUDAManaged",
    14: "kDLOneAPI", 15: "kDLWebGPU", 16: "kDLHexagon", 17: "kDLMAIA", 18: "kDLTrn",
}

# DLDataTypeCode names, for error messages about types ember cannot hold.
TYPE_CODE_NAMES = {
    0: "kDLInt", 1: "kDLUInt", 2: "kDLFloat", 3: "kDLOpaqueHandle", 4: "kDLBfloat", 5: "kDLComplex",
    6: "kDLBool", 7: "kDLFloat8_e3m4", 8: "kDLFloat8_e4m3", 9: "kDLFloat8_e4m3b11fnuz",
    10: "kDLFloat8_e4m3fn", 11: "kDLFloat8_e4m3fnuz", 12: "kDLFloat8_e5m2", 13: "kDLFloat8_e5m2fnuz",
    14: "kDLFloat8_e8m0fnu", 15: "kDLFloat6_e2m3fn", 16: "kDLFloat6_e3m2fn", 17: "kDLFloat4_e2m1fn",
}

FLAG_READ_ONLY = 1 << 0
FLAG_IS_COPIED = 1 << 1


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),  # in elements; NULL means C-contiguous
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    """The legacy (pre-1.0) managed tensor, carried by a ``"dltensor"`` capsule."""


class DLManagedTensorVersioned(ctypes.Structure):
    """The DLPack 1.x managed tensor, carried by a ``"dltensor_versioned"`` capsule."""


MANAGED_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)  # void (*deleter)(Managed *self)
CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)  # void (*)(PyObject *capsule)

DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]
DLManagedTensorVersioned._fields_ = [
    ("version", DLPackVersion),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", ctypes.c_void_p),
    ("flags", ctypes.c_uint64),
    ("dl_tensor", DLTensor),
]

# The same layouts as flat struct formats ("=": native byte order, no implicit padding; every
# field above sits at its natural alignment, checked below).
DLTENSOR_FORMAT = "QiiiBBHQQQ"  # data, device type/id, ndim, code/bits/lanes, shape, strides, byte_offset
VERSIONED_FORMAT = "=IIQQQ" + DLTENSOR_FORMAT  # version, manager_ctx, deleter, flags, dl_tensor
LEGACY_FORMAT = "=" + DLTENSOR_FORMAT + "QQ"  # dl_tensor, manager_ctx, deleter
VERSIONED_HEADER = struct.Struct(VERSIONED_FORMAT)
LEGACY_HEADER = struct.Struct(LEGACY_FORMAT)


def _check_layout() -> None:
    # The packed formats must put every field where the C compiler (ctypes) puts it.
    assert ctypes.sizeof(ctypes.c_void_p) == 8, "DLPack support assumes 64-bit pointers"
    assert VERSIONED_HEADER.size == ctypes.sizeof(DLManagedTensorVersioned) == 80
    assert LEGACY_HEADER.size == ctypes.sizeof(DLManagedTensor) == 64
    assert DLManagedTensorVersioned.dl_tensor.offset == 32
    assert DLManagedTensorVersioned.flags.offset == 24
    assert DLManagedTensor.deleter.offset == 56
    assert DLTensor.byte_offset.offset == 40


_check_layout()


# -- the capsule API ---------------------------------------------------------------------
# Two prototypes per function: with py_object for live capsules, and with c_void_p for the
# destructor, which runs while the capsule's refcount is zero and must not touch it as an object.

_api = ctypes.pythonapi


def _fn(name: str, restype, *argtypes):
    return ctypes.PYFUNCTYPE(restype, *argtypes)((name, _api))


capsule_new = _fn("PyCapsule_New", ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)
capsule_is_valid = _fn("PyCapsule_IsValid", ctypes.c_int, ctypes.py_object, ctypes.c_char_p)
capsule_get_pointer = _fn("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)
capsule_set_name = _fn("PyCapsule_SetName", ctypes.c_int, ctypes.py_object, ctypes.c_char_p)
capsule_get_name = _fn("PyCapsule_GetName", ctypes.c_char_p, ctypes.py_object)
# The same functions taking the capsule's address (``id(capsule)`` while the caller holds a
# reference): an int converts faster than a py_object, and the destructor has nothing else.
raw_capsule_is_valid = _fn("PyCapsule_IsValid", ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)
raw_capsule_get_pointer = _fn("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)
raw_capsule_set_name = _fn("PyCapsule_SetName", ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)

# The process's memory as one buffer, so that ``struct.unpack_from(format, MEMORY, address)``
# reads a C struct in place: no ctypes call and no bytes object per read (half the cost of
# ``ctypes.string_at``). It allocates nothing and, like any read through a foreign pointer,
# trusts the producer's addresses.
MEMORY = (ctypes.c_char * sys.maxsize).from_address(0)

# A foreign deleter, called with the GIL held: correct for deleters that take the GIL themselves
# (as the spec asks) and safe for those that assume it.
FOREIGN_DELETER = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)

# Capsule names must outlive every capsule (PyCapsule keeps the pointer, not a copy): they are
# module constants that are also leaked on purpose below, so interpreter shutdown cannot free them.
NAME_VERSIONED = b"dltensor_versioned"
NAME_LEGACY = b"dltensor"
USED_VERSIONED = b"used_dltensor_versioned"
USED_LEGACY = b"used_dltensor"
PROBE_NAME = b"ember.capsule_type_probe"


def keep_forever(obj: object) -> object:
    """Take one reference that is never given back, so ``obj`` survives interpreter shutdown
    (callbacks and names that C code may still reach after this module is torn down)."""
    _api.Py_IncRef(ctypes.py_object(obj))
    return obj


for _name in (NAME_VERSIONED, NAME_LEGACY, USED_VERSIONED, USED_LEGACY, PROBE_NAME):
    keep_forever(_name)
