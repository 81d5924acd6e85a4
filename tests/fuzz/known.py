"""Where the fuzzer's comparison with torch does not apply, each with its reason.

Four kinds of entry belong here: values that are random or unspecified (compared by shape and
dtype only), ember's documented extensions (keywords torch's namesake lacks), the leniencies
``docs/bad-input.md`` lists (ember answers, unambiguously, a call torch refuses on a technicality
of spelling), and torch namesakes that take a different call. A finding is never silenced
here: it is fixed, or it is one of these, documented.
"""

import re

# values drawn from a generator, left uninitialized, or unspecified for the drawn input
RANDOM_VALUES = {
    "empty": "uninitialized", "empty_like": "uninitialized", "empty_strided": "uninitialized",
    "Tensor.new_empty": "uninitialized", "dropout": "random mask", "alpha_dropout": "random mask",
    "feature_alpha_dropout": "random mask", "dropout1d": "random mask", "dropout2d": "random mask",
    "dropout3d": "random mask", "rrelu": "random slopes in training", "gumbel_softmax": "random noise",
    "searchsorted": "the drawn sequence is not sorted: the result is unspecified",
    "bucketize": "the drawn boundaries are not sorted: the result is unspecified",
    "argsort": "the order of equal elements is unspecified unless stable=True",
    "unique": "unsorted unique's order is unspecified",
    "linalg.eigh": "eigenvectors' signs are unspecified", "linalg.svd": "singular vectors' signs are unspecified",
    "svd": "singular vectors' signs are unspecified", "linalg.qr": "Q's and R's signs are unspecified",
    "qr": "Q's and R's signs are unspecified", "linalg.eig": "eigenvectors' phases are unspecified",
    "cholesky_inverse": "a drawn complex factor's diagonal is not real: torch's LAPACK potri reads its real part in places",
}  # fmt: skip
# entries whose index results are unspecified among equal values: their values are compared
TIED_INDICES = {"topk", "sort", "kthvalue", "mode", "median", "nanmedian", "msort"}

# keywords ember accepts that torch's namesake lacks (docs/bad-input.md, "Extensions"); a keyword
# named "entry:keyword" is ember's for that entry alone
EXTENSION_KEYWORDS = {
    "eye:k": "the array API's eye(n, m, k=) diagonal offset",
    "linspace:endpoint": "the array API's linspace(..., endpoint=False)",
    "placement": "global tensors: a factory makes a global tensor on a placement",
    "sbp": "global tensors: the layout of a factory's global tensor",
    "generator": "dropout takes a generator, as every other random op does",
    "inplace": "ember.relu is F.relu (one function), so it takes inplace=",
    "axis": "the array API's spelling of dim, accepted everywhere",
    "keepdims": "the array API's spelling of keepdim, accepted everywhere",
}

# BLAS products outside linalg: like linalg's results, compared as non-finite where torch's are
LOOSE = {"linear", "bilinear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"}
# FFTs mix every input into every output: where an input is non-finite, which outputs come out nan
# and which +-inf depends on the algorithm's order of operations (pocketfft here, MKL in torch's build)
FFT_TRANSFORMS = {f"fft.{kind}{form}" for kind in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft") for form in ("", "2", "n")}
LOOSE |= FFT_TRANSFORMS
# torch's trigamma (polygamma with n = 1) sums six shifts and four asymptotic terms, good to ~1e-9
# relative; ember's Hurwitz zeta is good to ~1e-15 (tests/ops/elementwise/test_special_functions.py
# compares the two at 1e-9 and ember with exact identities)
LOOSE |= {"polygamma", "Tensor.polygamma"}

# the reductions that take keepdim without a dim (every dim reduced, and kept as size 1)
REDUCTIONS = {"sum", "prod", "mean", "nansum", "nanmean", "amax", "amin", "std", "var", "count_nonzero", "all", "any", "norm"}

# torch refusals on spelling alone, where ember's answer is the one the caller meant:
# (entry, or None for every entry; what torch says; why ember answers)
LENIENT = [
    (
        "hamming_window",
        r"got \(int, .*(alpha|beta)=(float|int)",
        "torch's overloads chain periodic, alpha, beta; ember's one signature takes each by keyword, defaults for the rest",
    ),
    (FFT_TRANSFORMS, r"MKL FFT error", "an empty batch: torch's MKL build refuses it; its pocketfft build, like NumPy, gives the empty result"),
    (None, r"must be tuple of ints, not int", "one int for a size list: the list of that one int"),
    (None, r"argument 'dtype' must be torch.dtype, not (str|type)|dtype=(str|type)[,)]", "a dtype by name or by NumPy type"),
    (None, r"argument 'memory_format' must be torch.memory_format, not NoneType", "memory_format=None: the default"),
    (None, r"argument 'other' \(position 2\) must be Tensor, not (int|float|bool|complex)", "a Python number beside a tensor"),
    (
        {"Tensor.uniform_", "Tensor.random_"},
        r"unexpected keyword argument '(low|high)'|(low|high)=int",
        "torch spells them from/to, Python keywords",
    ),
    ({"sort", "argsort"}, r"got \(Tensor, int(, bool)?, stable=bool\)", "torch takes dim by keyword only beside stable="),
    ("broadcast_tensors", r"expected Tensor as element 0 in argument 0, but got list", "a list of the tensors, as meshgrid takes"),
    ("chunk", r"split_size can only be 0 if dimension size is 0", "torch's size + chunks - 1 overflows int64 for a huge chunks"),
    (
        "logsumexp",
        r"output with shape \[\] doesn't match the broadcast shape",
        "torch's logsumexp(x, ()) cannot write its own result",
    ),
    (
        None,
        r"can't convert negative int to unsigned|int too big to convert|Overflow when unpacking long",
        "an int past int64 beside a float tensor: its float value",
    ),
    ("prod", r"argument 'dim' \(position 2\) must be int, not tuple|got \(Tensor, tuple", "prod over several dims, as sum"),
    (REDUCTIONS, r"missing 1 required positional arguments: \"dim\"", "sum(x, keepdim=True): every dim reduced and kept"),
    ("normal", r"got \(float, float, int\)", "normal(mean, std, n): one int for the size"),
    (
        None,
        r"invalid combination of arguments - got \(Tensor, (dtype=torch.dtype, )?keepdim=bool",
        "keepdim without dim: every dim reduced and kept",
    ),
    ("arange", r"got \((int|float|bool), .*step=", "arange(end, step=s) counts from 0"),
    ("count_nonzero", r"got \(Tensor, Tensor\)", "dims given as a tensor, as sum takes them"),
    ("argsort", r"takes from 2 to 1 positional arguments", "torch's argsort(x, dim, stable=...) refuses its own signature"),
    (
        {"getitem", "setitem"},
        r"The shape of the mask \[(\d+, )*0(, \d+)*\] at index",
        "a mask dimension of size 0 selects nothing (the array API's rule); a nonzero mismatch still raises",
    ),
    ("kron", r"view size is not compatible with input tensor's size and stride", "torch's kron views a non-contiguous input"),
    ("chain_matmul", r"expected Tensor as element 0 in argument 0, but got list", "one sequence of matrices, as every varargs op"),
    (
        {"matrix_exp", "linalg.matrix_exp"},
        r"view size is not compatible with input tensor's size and stride",
        "torch's matrix_exp views a non-contiguous batch",
    ),
    (
        "isin",
        r"view size is not compatible with input tensor's size and stride",
        "torch's isin takes a view of a non-contiguous test_elements and fails; the answer is still defined",
    ),
]
LENIENT = [({entry} if isinstance(entry, str) else entry, re.compile(pattern), why) for entry, pattern, why in LENIENT]
# None for an argument ember declares optional means its default
NONE_MEANS_DEFAULT = re.compile(r"NoneType")

# entries whose value at an infinite input or at a pole (0, a negative integer) is the limit in
# ember and an artifact in torch: compared by shape and dtype only when the input holds such values
LIMITS = {
    "i0": "torch's Chebyshev series gives nan at +-inf; ember gives the limit, inf",
    "special.i1": "torch's Chebyshev series gives nan at +-inf; ember gives the limit, +-inf",
    "polygamma": "at a pole torch's reflection divides by sin(pi x) rounded off 0 (a huge finite value); ember gives inf",
    "Tensor.polygamma": "as polygamma",
}

# torch callables for entries whose torch namesake is not found by name
TORCH_NAMES = {"unfold": "Tensor.unfold", "index": None}
