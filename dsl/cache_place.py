"""Where compiled things are cached, and the compiler version their keys carry: a module
that imports nothing heavy, so a warm `kb diagnose` finds its snapshot without pydantic."""

from __future__ import annotations

from dsl.cache_files import cache_dir as cache_dir
from dsl.cache_files import sealed_body as sealed_body
from dsl.cache_files import write_cache_file as write_cache_file
from dsl.catalogue.template import TEMPLATE_VERSION

COMPILER_VERSION = f"5.{TEMPLATE_VERSION}"  # a template change recompiles every case
