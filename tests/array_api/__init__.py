"""ember.array_api: the array API standard (2025.12) namespace, checked against NumPy 2.

NumPy 2's main namespace follows the standard closely, so it is the reference here; where
array-api-strict is installed the adapters are also compared with it (those tests skip cleanly
without it). One test module per module of ``ember/array_api/``.
"""
