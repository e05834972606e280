"""A fixture world built from real dependency data (``../shared/corpus``): git repositories
with one tagged commit per module version, a module registry and a provider registry over
HTTP on 127.0.0.1, and a CLI config that points tofu-solve at them.

Used by the tests, ``tofu-solve demo`` and the benchmarks. Never reaches beyond loopback.
"""

from .build import World, build_world, default_world_dir
from .servers import GitDaemon, RegistryServer, running_world, write_cli_config

__all__ = ["GitDaemon", "RegistryServer", "World", "build_world", "default_world_dir", "running_world",
           "write_cli_config"]
