"""What every test shares: Hypothesis without its per-example deadline. A deadline (200 ms
by default) measures the machine, not the code, and the suite must pass with both cores
loaded; how fast things are is measured in bench/, never asserted in a test."""

from hypothesis import settings

settings.register_profile("suite", deadline=None)
settings.load_profile("suite")
