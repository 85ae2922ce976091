"""The former home of the PyTorch classes, kept so code written for ``shardflow.torch`` still runs:
they live in :mod:`shardflow.integrations.torch`."""

from shardflow.integrations.torch import *  # noqa: F401,F403
from shardflow.integrations.torch import __all__  # noqa: F401
