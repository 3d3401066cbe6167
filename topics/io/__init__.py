# Each module is imported when it is first used as an attribute of the package
# (``topics.<package>.<module>`` after ``import topics``, PEP 562).
from topics.lazy import submodules

__getattr__ = submodules(__name__)
