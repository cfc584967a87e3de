"""`.cabal` dependencies by component, for Linux/x86_64, GHC 9.8.4 and default flags."""

from __future__ import annotations

from pkgintel.domain.packages import Dependency
from pkgintel.domain.trees.cabal import library_dependencies

CABAL = """\
cabal-version: 2.4
name:          foo
version:       1.0

-- a comment
flag dev
  description: developer mode
  default:     False
  manual:      True

flag fast
  default: True

common shared
  build-depends: base >=4.7 && <5

library internal
  build-depends: containers ^>=0.6

library
  import:          shared
  exposed-modules: Foo
  build-depends:
      text ^>=2.0
    , foo:internal
    , bytestring >= 0.10
    , aeson == 2.2.*
  if os(windows)
    build-depends: Win32 >= 2.6
  else
    build-depends: unix >= 2.7
  if flag(dev)
    build-depends: pretty-simple
  if flag(fast) && !arch(i386)
    build-depends: primitive
  if impl(ghc >= 9.6)
    build-depends: bytestring < 0.13
  elif impl(ghc >= 9.0)
    build-depends: ghc-bignum
  if impl(ghcjs)
    build-depends: ghcjs-base
  if os(haiku)
    build-depends: strange
  if unknown-test(x)
    build-depends: mystery

executable foo
  main-is:       Main.hs
  build-depends: base, foo, optparse-applicative

test-suite spec
  type:          exitcode-stdio-1.0
  build-depends: hspec
"""


def _by_name() -> dict[str, Dependency]:
    deps = library_dependencies(CABAL, own="foo")
    assert deps is not None
    return {d.name: d for d in deps}


def test_the_library_builds_with_its_own_common_and_sub_library_dependencies() -> None:
    deps = _by_name()
    runtime = {n for n, d in deps.items() if d.kind == "runtime"}
    assert runtime == {"base", "text", "containers", "bytestring", "aeson", "unix", "primitive"}
    assert deps["base"].requirement == ">=4.7 && <5"  # from the imported common stanza
    assert deps["containers"].requirement == "^>=0.6"  # through foo:internal
    # named twice (the field and a taken branch): the intersection, as Cabal combines them
    assert deps["bytestring"].requirement == "(>= 0.10) && (< 0.13)"


def test_branches_not_taken_are_conditional_with_their_condition() -> None:
    deps = _by_name()
    assert deps["Win32"].kind == "conditional" and deps["Win32"].marker == "os(windows)"
    assert deps["pretty-simple"].marker == "flag(dev)"  # manual flag, default False
    assert deps["ghc-bignum"].kind == "conditional"  # elif after a taken if
    assert deps["ghcjs-base"].kind == "conditional" and deps["strange"].kind == "conditional"
    assert "not decided here" in (deps["mystery"].marker or "")


def test_executables_count_apart_and_test_suites_never() -> None:
    deps = _by_name()
    assert deps["optparse-applicative"].kind == "executable"
    assert "hspec" not in deps and "foo" not in deps


def test_brace_layout_is_not_read() -> None:
    assert library_dependencies("library {\n build-depends: base\n}\n", own="x") is None
