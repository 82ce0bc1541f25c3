"""Project-wide test settings: a derandomised hypothesis profile so CI runs are repeatable.

Hypothesis keeps its files (example database, caches) in a directory of the system's temporary
area, never in the source tree or in whatever directory pytest was started from.
"""

import os
import tempfile

from hypothesis import HealthCheck, settings
from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.database import DirectoryBasedExampleDatabase

_HOME = os.path.join(tempfile.gettempdir(), "convbound-hypothesis")
set_hypothesis_home_dir(_HOME)

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,  # derandomised: nothing to replay, nothing to store
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=30,
                          database=DirectoryBasedExampleDatabase(os.path.join(_HOME, "examples")))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
