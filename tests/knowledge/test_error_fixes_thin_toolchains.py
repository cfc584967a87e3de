"""
Real error texts (as reported in the issues cited by the entries) reach the curated entries added
for the thinner toolchains (pnpm, conda, gradle, go, composer, bundler): the normaliser turns each
text into candidate patterns, and one of them is exactly the stored pattern's hash. The texts
differ from the stored patterns in their volatile parts (paths, versions, hex ids, noise lines).
"""

from __future__ import annotations

import pytest

from pkgintel.domain.knowledge.error_patterns import (
    Form,
    error_hash,
    normalise_error,
    normalise_line,
)
from pkgintel.knowledge.error_fixes import load_error_knowledge

# (id, raw text as printed, the entry's pattern as written in the data file, its form)
CASES = [
    (
        "pnpm-unsupported-engine",
        " ERR_PNPM_UNSUPPORTED_ENGINE  Unsupported environment (bad pnpm and/or Node.js version)\n\n"
        'Your Node version is incompatible with "/pnpm/10.13.1".\n\nExpected version: >=18.12\n'
        "Got: v16.20.2",
        "ERR_PNPM_UNSUPPORTED_ENGINE",
        Form.CODE,
    ),
    (
        "pnpm-lockfile-breaking-change",
        "#12 0.395  ERR_PNPM_LOCKFILE_BREAKING_CHANGE  Lockfile /preflight/pnpm-lock.yaml not "
        "compatible with current pnpm\n#12 0.395\n#12 0.395 Run with the --force parameter to "
        "recreate the lockfile.",
        "ERR_PNPM_LOCKFILE_BREAKING_CHANGE",
        Form.CODE,
    ),
    (
        "pnpm-bad-pm-version",
        "ERR_PNPM_BAD_PM_VERSION  This project is configured to use v9.15.9 of pnpm. "
        "Your current pnpm is v9.0.5",
        "ERR_PNPM_BAD_PM_VERSION",
        Form.CODE,
    ),
    (
        "pnpm-other-pm-expected",
        " ERR_PNPM_OTHER_PM_EXPECTED  This project is configured to use >=pnpm",
        "ERR_PNPM_OTHER_PM_EXPECTED",
        Form.CODE,
    ),
    (
        "pnpm-lockfile-missing-dependency",
        "Lockfile is up to date, resolution step is skipped\n"
        " ERR_PNPM_LOCKFILE_MISSING_DEPENDENCY  Broken lockfile: no entry for "
        "'/@changesets/cli/2.26.1' in pnpm-lock.yaml\n\n"
        "This issue is probably caused by a badly resolved merge conflict.",
        "ERR_PNPM_LOCKFILE_MISSING_DEPENDENCY",
        Form.CODE,
    ),
    (
        "pnpm-no-matching-version",
        " ERR_PNPM_NO_MATCHING_VERSION  No matching version found for pnpm@9.8.10",
        "ERR_PNPM_NO_MATCHING_VERSION",
        Form.CODE,
    ),
    (
        "pnpm-fetch-404",
        " ERR_PNPM_FETCH_404  GET https://registry.npmjs.org/@intlify/devtools-if/download/"
        "@intlify/devtools-if-9.1.9.tgz: Not Found - 404",
        "ERR_PNPM_FETCH_404",
        Form.CODE,
    ),
    (
        "conda-padding",
        "PaddingError: Placeholder of length '80' too short in package "
        "bioconda::treebest-1.9.2_ep78-0.\nThe package must be rebuilt with conda-build > 2.0.",
        "conda PaddingError",
        Form.CODE,
    ),
    (
        "conda-resolve-package-not-found",
        "Collecting package metadata (repodata.json): done\nSolving environment: failed\n\n"
        "ResolvePackageNotFound: \n  - matplotlib-base==3.1.3=py37hef1b27d_0",
        "conda ResolvePackageNotFound",
        Form.CODE,
    ),
    (
        "conda-verification",
        "Preparing transaction: done\nVerifying transaction: failed\n\n"
        "CondaVerificationError: The package for scipy located at D:\\Anaconda\\pkgs\\scipy-1.1.0-py37h4f6bf74_1\n"
        "appears to be corrupted.",
        "conda CondaVerificationError",
        Form.CODE,
    ),
    (
        "gradle-compile-method",
        "FAILURE: Build failed with an exception.\n\n* Where:\n"
        "Build file '/Users/michael/ddd/build.gradle' line: 13\n\n* What went wrong:\n"
        "A problem occurred evaluating root project 'first-steps-in-ddd'.\n"
        "> Could not find method compile() for arguments [org.apache.commons:commons-collections4:4.1] "
        "on object of type org.gradle.api.internal.artifacts.dsl.dependencies.DefaultDependencyHandler.",
        "Could not find method compile() for arguments [org.apache.commons:commons-collections4:4.4] "
        "on object of type org.gradle.api.internal.artifacts.dsl.dependencies.DefaultDependencyHandler.",
        Form.SPECIFIC,
    ),
    (
        "gradle-compile-configuration",
        "Starting a Gradle Daemon (subsequent builds will be faster)\n\n"
        "FAILURE: Build failed with an exception.\n\n* What went wrong:\n"
        "Configuration with name 'compile' not found.\n\n* Try:\nRun with --stacktrace option.",
        "Configuration with name 'compile' not found.",
        Form.SPECIFIC,
    ),
    (
        "gradle-java-io-opens",
        "> Task :app:processDebugMainManifest FAILED\n\nFAILURE: Build failed with an exception.\n\n"
        "* What went wrong:\nExecution failed for task ':app:processDebugMainManifest'.\n"
        "> Unable to make field private final java.lang.String java.io.File.path accessible: "
        'module java.base does not "opens java.io" to unnamed module @7da5a539',
        "Unable to make field private final java.lang.String java.io.File.path accessible: "
        'module java.base does not "opens java.io" to unnamed module @4b4f3f8f',
        Form.SPECIFIC,
    ),
    (
        "gradle-invoker-helper",
        "FAILURE: Build failed with an exception.\n\n* What went wrong:\n"
        "Could not initialize class org.codehaus.groovy.runtime.InvokerHelper\n\n* Try:\n"
        "Run with --info or --debug option to get more log output.",
        "Could not initialize class org.codehaus.groovy.runtime.InvokerHelper",
        Form.SPECIFIC,
    ),
    (
        "gradle-plugin-no-version",
        "* What went wrong:\n"
        "Plugin [id: 'com.github.ben-manes.versions'] was not found in any of the following sources:\n\n"
        "- Gradle Core Plugins (plugin is not in 'org.gradle' namespace)\n"
        "- Plugin Repositories (plugin dependency must include a version number for this source)",
        "Plugin [id: 'com.android.application'] was not found in any of the following sources:",
        Form.GENERIC,
    ),
    (
        "gradle-plugin-with-version",
        "* What went wrong:\nPlugin [id: 'com.gradleup.gr8', version: '0.11.1'] was not found in any of the "
        "following sources:\n\n- Gradle Core Plugins (plugin is not in 'org.gradle' namespace)",
        "Plugin [id: 'com.github.hierynomus.license', version: '0.14.0'] was not found in any of "
        "the following sources:",
        Form.GENERIC,
    ),
    (
        "go-invalid-go-version",
        "$ go run main.go\ngo: errors parsing go.mod:\n"
        "/pgp2ssh/go.mod:3: invalid go version '1.21.8': must match format 1.23",
        "/src/go.mod:3: invalid go version '1.21.0': must match format 1.23",
        Form.SPECIFIC,
    ),
    (
        "go-get-outside-module",
        "go: go.mod file not found in current directory or any parent directory.\n"
        "\t'go get' is no longer supported outside a module.\n"
        "\tTo build and install a command, use 'go install' with a version,\n"
        "\tlike 'go install example.com/cmd@latest'",
        "go: go.mod file not found in current directory or any parent directory.",
        Form.SPECIFIC,
    ),
    (
        "go-ambiguous-genproto",
        "../../../go/pkg/mod/google.golang.org/grpc@v1.56.2/status/status.go:35:2: ambiguous "
        "import: found package google.golang.org/genproto/googleapis/rpc/status in multiple modules:\n"
        "\tgoogle.golang.org/genproto v0.0.0-20230410155749-daa745c078e1 (/home/jon/go/pkg/mod/"
        "google.golang.org/genproto@v0.0.0-20230410155749-daa745c078e1/googleapis/rpc/status)",
        "/go/pkg/mod/google.golang.org/grpc@v1.70.0/status/status.go:35:2: ambiguous import: found "
        "package google.golang.org/genproto/googleapis/rpc/status in multiple modules:",
        Form.SPECIFIC,
    ),
    (
        "go-module-declares-path",
        "go: github.com/golang/lint@v0.0.0-20190313153728-d0100b6bd8b3: parsing go.mod:\n"
        "module declares its path as: golang.org/x/lint\n"
        "but was required as: github.com/golang/lint",
        "module declares its path as: golang.org/x/lint",
        Form.SPECIFIC,
    ),
    (
        "composer-platform-check-fatal",
        "[10-Jul-2023 01:06:43 UTC] PHP Fatal error:  Composer detected issues in your platform: "
        'Your Composer dependencies require a PHP version ">= 8.1.0". You are running 8.0.29. in '
        "/home/papelarte/public_html/churchcrm/vendor/composer/platform_check.php on line 24",
        "PHP Fatal error: Composer detected issues in your platform: Your Composer dependencies "
        'require a PHP version ">= 8.1.0". You are running 8.0.30. in '
        "/app/vendor/composer/platform_check.php on line 24",
        Form.SPECIFIC,
    ),
    (
        "composer-platform-check-cli",
        "peter@x1:/tmp$ packr -v\nComposer detected issues in your platform:\n\n"
        'Your Composer dependencies require a PHP version ">= 7.3.0". You are running 7.2.24.',
        "Composer detected issues in your platform:",
        Form.SPECIFIC,
    ),
    (
        "composer-lock-incompatible",
        "Installing dependencies from lock file (including require-dev)\n"
        "Verifying lock file contents can be installed on current platform.\n"
        "Your lock file does not contain a compatible set of packages. Please run composer update.\n\n"
        "  Problem 1\n    - Root composer.json requires php ^8.1 but your php version (8.0.30) "
        "does not satisfy that requirement.",
        "Your lock file does not contain a compatible set of packages. Please run composer update.",
        Form.SPECIFIC,
    ),
    (
        "composer-plugin-api-package-versions",
        "  Problem 1\n    - ocramius/package-versions is locked to version 1.4.0 and an update of "
        "this package was not requested.\n    - ocramius/package-versions 1.4.0 requires "
        "composer-plugin-api ^1.0.0 -> found composer-plugin-api[2.2.0] but it does not match the "
        "constraint.",
        "ocramius/package-versions 1.3.0 requires composer-plugin-api ^1.0.0 -> found "
        "composer-plugin-api[2.1.0] but it does not match the constraint.",
        Form.SPECIFIC,
    ),
    (
        "composer-plugin-api-flex",
        "  Problem 2\n    - symfony/flex is locked to version v1.6.2 and an update of this package "
        "was not requested.\n    - symfony/flex v1.6.2 requires composer-plugin-api ^1.0 -> found "
        "composer-plugin-api[2.1.0] but it does not match the constraint.",
        "symfony/flex v1.1.7 requires composer-plugin-api ^1.0 -> found composer-plugin-api[2.1.0] "
        "but it does not match the constraint.",
        Form.SPECIFIC,
    ),
    (
        "bundler-mimemagic-yanked",
        "Fetching gem metadata from https://rubygems.org/..........\n"
        "Your bundle is locked to mimemagic (0.3.4), but that version could not be found\n"
        "in any of the sources listed in your Gemfile. If you haven't changed sources,",
        "Your bundle is locked to mimemagic (0.3.5), but that version could not be found",
        Form.SPECIFIC,
    ),
    (
        "bundler-revealed-dependencies",
        "Downloading mimemagic-0.3.10 revealed dependencies not in the API or the lockfile "
        "(nokogiri (~> 1.11.3)).\nEither installing with `--full-index` or running `bundle update "
        "mimemagic` should fix the problem.",
        "Downloading mimemagic-0.3.7 revealed dependencies not in the API or the lockfile "
        "(nokogiri (~> 1.11.2)).",
        Form.SPECIFIC,
    ),
    (
        "bundler-2-lockfile",
        "$ bundle install\nYou must use Bundler 2 or greater with this lockfile.",
        "You must use Bundler 2 or greater with this lockfile.",
        Form.SPECIFIC,
    ),
    (
        "bundler-not-installed",
        "/usr/share/rvm/rubies/ruby-2.6.2/lib/ruby/2.6.0/rubygems.rb:283:in `find_spec_for_exe': "
        "Could not find 'bundler' (2.0.1) required by your "
        "/home/gitlab-runner/builds/jZR2y/0/android/Gemfile.lock. (Gem::GemNotFoundException)\n"
        "To update to the latest version installed on your system, run `bundle update --bundler`.",
        "/usr/lib/ruby/2.6.0/rubygems.rb:283:in `find_spec_for_exe': Could not find 'bundler' "
        "(2.0.1) required by your /app/Gemfile.lock. (Gem::GemNotFoundException)",
        Form.SPECIFIC,
    ),
    (
        "ruby-psych-disallowed-class",
        "rake aborted!\nPsych::DisallowedClass: Tried to load unspecified class: Symbol\n"
        "/home/yeti-web/pgq-processors/pgq_config.rb:17:in `config'",
        "Psych::DisallowedClass: Tried to load unspecified class: Symbol",
        Form.SPECIFIC,
    ),
]


@pytest.mark.parametrize(("case", "raw", "written", "form"), CASES, ids=[c[0] for c in CASES])
def test_real_text_reaches_its_entry(case: str, raw: str, written: str, form: Form) -> None:
    stored = normalise_line(written, form)
    by_hash = {e.error_hash: e for e in load_error_knowledge()}
    assert error_hash(stored) in by_hash, f"{case}: entry {stored!r} is not in the knowledge base"
    candidates = [error_hash(p) for p, _, _ in normalise_error(raw).candidate_patterns()]
    assert error_hash(stored) in candidates, (case, normalise_error(raw).candidate_patterns())


def test_entries_of_thin_toolchains_cite_their_own_sources() -> None:
    entries = {e.error_hash: e for e in load_error_knowledge()}
    for _, _, written, form in CASES:
        entry = entries[error_hash(normalise_line(written, form))]
        assert entry.sources and all(s.startswith("https://") for s in entry.sources)
        assert entry.fix and entry.cause
