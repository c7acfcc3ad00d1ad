"""Builds twinmaf's Python module with the project's CMake (pyproject.toml).

TWINMAF_BUILD_DIR: a CMake build directory to build in (an existing one is
reused as configured); default build/pip. TWINMAF_JOBS: parallel jobs (1)."""
import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SRC = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.path.abspath(os.environ.get("TWINMAF_BUILD_DIR") or os.path.join(SRC, "build", "pip"))
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            subprocess.run(
                ["cmake", "-S", SRC, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                 f"-DPython3_EXECUTABLE={sys.executable}", "-DTWINMAF_BUILD_TESTS=OFF", "-DTWINMAF_BUILD_BENCH=OFF"],
                check=True,
            )
        subprocess.run(
            ["cmake", "--build", build, "--target", "_twinmaf", "-j", os.environ.get("TWINMAF_JOBS", "1")], check=True
        )
        built = glob.glob(os.path.join(build, "python", "twinmaf", "_twinmaf*.so"))
        if len(built) != 1:
            raise RuntimeError(f"expected one _twinmaf module in {build}/python/twinmaf, found {built}")
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(built[0], dest)


setup(
    packages=["twinmaf"],
    package_dir={"": "python"},
    ext_modules=[Extension("twinmaf._twinmaf", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
)
