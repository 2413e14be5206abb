"""pyverbs' enums for the guest's pyverbs programs, under rdma-core 44's
module name (Debian 12's root) or 65's (the Debian 13 guest root: the
same module-level names).  Imported from the programs' own directory,
which python3 puts first on sys.path: `from verbs_enums import e`."""
try:
    import pyverbs.enums as e  # rdma-core 44 (Debian 12)
except ImportError:  # rdma-core 65: renamed, the same module-level names
    import pyverbs.libibverbs_enums as e

__all__ = ["e"]
