from topics.clustering import kernels


def test_umap_kernels_get_a_disk_cache_but_not_the_twin_parallel_epoch(monkeypatch):
    import umap.layouts
    import umap.umap_
    from numba.core.caching import FunctionCache, NullCache

    monkeypatch.setattr(kernels, "_enabled", None)
    kernels.cache_umap_kernels()
    assert isinstance(umap.umap_.smooth_knn_dist._cache, FunctionCache)
    assert isinstance(umap.layouts._nb_optimize_layout_euclidean_single_epoch._cache, FunctionCache)
    # serial and parallel epochs share one Python function, so one cache name: only one is cached
    assert isinstance(umap.layouts._nb_optimize_layout_euclidean_single_epoch_parallel._cache, NullCache)


def test_switched_off_by_environment(monkeypatch):
    monkeypatch.setattr(kernels, "_enabled", None)
    monkeypatch.setenv("TOPICS_NUMBA_CACHE", "0")
    assert kernels.cache_umap_kernels() == 0


def test_no_writable_cache_folder_means_compiling_as_before(monkeypatch):
    import umap.umap_
    from numba.core.caching import NullCache
    from numba.core.dispatcher import Dispatcher

    monkeypatch.setattr(umap.umap_.smooth_knn_dist, "_cache", NullCache())

    def no_locator(self):
        raise RuntimeError("cannot cache function: no locator available")

    monkeypatch.setattr(Dispatcher, "enable_caching", no_locator)
    monkeypatch.setattr(kernels, "_enabled", None)
    assert kernels.cache_umap_kernels() == 0
    assert isinstance(umap.umap_.smooth_knn_dist._cache, NullCache)

