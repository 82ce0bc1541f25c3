"""Where evidence is computed: tasks mapped in-process or on a Dask cluster (:mod:`verify.runtime.executor`)."""
