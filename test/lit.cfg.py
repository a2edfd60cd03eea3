# lit configuration for the libtorch-tidy test suites.
import os
import shlex

import lit.formats


# lit finds this file from the source tree; the build's paths come from the
# lit.site.cfg.py that CMake generates, named by --param config_site.
if not hasattr(config, "torch_tidy_src_root"):
    site = lit_config.params.get("config_site")
    if not site:
        lit_config.fatal("run through ctest, or pass --param config_site=BUILD/test/lit.site.cfg.py")
    lit_config.load_config(config, site)
else:
    config.name = "libtorch-tidy"
    config.test_format = lit.formats.ShTest(execute_external=False)
    config.suffixes = [".cpp", ".test"]
    config.excludes = ["Inputs", "check_torch_tidy.py"]
    config.test_source_root = os.path.dirname(__file__)
    config.test_exec_root = os.path.join(config.torch_tidy_obj_root, "test")
    config.environment["PATH"] = os.pathsep.join(
        [config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
    # The driver's result cache and automatic PCH live in the build tree, not
    # in the home directory; results of an older driver binary never match.
    config.environment["LIBTORCH_TIDY_CACHE_DIR"] = os.path.join(
        config.test_exec_root, "libtorch-tidy-cache")

    src = config.torch_tidy_src_root
    mock = os.path.join(src, "test", "checkers", "Inputs", "libtorch")


    def mock_flags(version, system=True):
        flag = "-isystem" if system else "-I"
        roots = [os.path.join(mock, version, "include", "torch", "csrc", "api", "include"),
                 os.path.join(mock, "common", "include"),
                 os.path.join(mock, "common", "include", "torch", "csrc", "api", "include")]
        return "-std=c++17 " + " ".join("%s %s" % (flag, shlex.quote(r)) for r in roots)


    runner = "%s %s --plugin %s --driver %s --clang-tidy %s --filecheck %s --cxx %s" % (
        shlex.quote(config.python_executable),
        shlex.quote(os.path.join(src, "test", "check_torch_tidy.py")),
        shlex.quote(config.plugin), shlex.quote(config.driver),
        shlex.quote(config.clang_tidy),
        shlex.quote(os.path.join(config.llvm_tools_dir, "FileCheck")),
        shlex.quote(config.cxx))

    config.substitutions.append(("%check_torch_tidy", runner))
    config.substitutions.append(("%torch_mock_1_13_user", mock_flags("v1.13", system=False)))
    config.substitutions.append(("%torch_mock_1_13", mock_flags("v1.13")))
    config.substitutions.append(("%torch_mock_2", mock_flags("v2.1")))
    config.substitutions.append(("%torch_mock_none", mock_flags("unversioned")))
    config.substitutions.append(("%plugin", shlex.quote(config.plugin)))
    config.substitutions.append(("%src_root", shlex.quote(src)))
    config.substitutions.append(("%driver", shlex.quote(config.driver)))
    config.substitutions.append(("%clang_tidy_other", shlex.quote(config.clang_tidy_other)))
    config.substitutions.append(("%clang_tidy", shlex.quote(config.clang_tidy)))
    config.substitutions.append(("%cxx", shlex.quote(config.cxx)))
    config.substitutions.append(("%examples", shlex.quote(os.path.join(src, "examples"))))
    config.substitutions.append(("%python", shlex.quote(config.python_executable)))
    if getattr(config, "clangd", ""):
        config.available_features.add("clangd")
        config.substitutions.append(("%clangd", shlex.quote(config.clangd)))

    # The real LibTorch headers, parsed through a shared precompiled header.
    if config.torch_pch and os.path.exists(config.torch_pch):
        config.available_features.add("real-libtorch")
        config.substitutions.append(
            ("%torch_real", "%s -include-pch %s" % (config.torch_flags, shlex.quote(config.torch_pch))))
        config.substitutions.append(("%torch_link", config.torch_link))
        config.substitutions.append(
            ("%bench", shlex.quote(os.path.join(config.torch_tidy_obj_root, "bench"))))
        # The verifier's precompiled harness header, shared by its tests.
        # Before %verify, which is its prefix.
        config.substitutions.append(
            ("%verify_cache", shlex.quote(os.path.join(config.torch_tidy_obj_root,
                                                       "test", "verify-cache"))))
        config.substitutions.append(
            ("%verify", shlex.quote(os.path.join(config.torch_tidy_obj_root,
                                                 "runtime-verify", "libtorch-tidy-verify"))))
    # Real LibTorch 2.x headers (trixie's, unpacked by scripts/setup-debian.sh),
    # through their own precompiled header: analysis and -fsyntax-only only.
    if getattr(config, "torch2_pch", "") and os.path.exists(config.torch2_pch):
        config.available_features.add("real-libtorch-2")
        config.substitutions.append(
            ("%torch2_real", "%s -include-pch %s" % (config.torch2_flags,
                                                     shlex.quote(config.torch2_pch))))
        # Without the PCH, for tests that put their own headers first.
        config.substitutions.append(("%torch2_flags", config.torch2_flags))
        config.substitutions.append(("%torch2_root", shlex.quote(config.torch2_root)))
    if config.clang_tidy_other and os.path.exists(config.clang_tidy_other):
        config.available_features.add("clang-tidy-other")
    # scripts/test.sh (and so CI) asks for the real headers: a missing PCH
    # would otherwise turn every real-header test into UNSUPPORTED, which
    # ctest counts as passed.
    if os.environ.get("LIBTORCH_TIDY_REQUIRE_REAL_HEADERS") == "1":
        for feature in ("real-libtorch", "real-libtorch-2"):
            if feature not in config.available_features:
                lit_config.fatal("%s is required (LIBTORCH_TIDY_REQUIRE_REAL_HEADERS=1) "
                                 "but its precompiled header is missing: build all "
                                 "targets first (scripts/build.sh)" % feature)
