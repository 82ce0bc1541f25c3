"""Plugin tests start with no plugin files loaded (the ``convbound`` runner is in tests/conftest.py)."""

import pytest

from bounds import plugins


@pytest.fixture(autouse=True)
def _no_plugins(monkeypatch):
    monkeypatch.delenv(plugins.ENV_VAR, raising=False)
    plugins.clear_files()
    yield
    plugins.clear_files()
