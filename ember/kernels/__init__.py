"""Kernels per device, registered on their op's ``OpExpr`` by (op name, device type)."""
