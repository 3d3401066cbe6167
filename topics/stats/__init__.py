# Each module is imported when it is first used as an attribute of the package
# (``topics.<package>.<module>`` after ``import topics``, PEP 562).


def __getattr__(name: str):
    import importlib

    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{name}":  # a dependency of the module is missing: say so
            raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
