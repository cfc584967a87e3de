"""
Noisy, realistic error texts of the JavaScript, Python, conda, Ruby and PHP toolchains (written for
this test, with real-looking paths, versions, prefixes and surrounding log lines) reach the curated
entries added for them: one of the normaliser's candidate patterns is exactly the stored pattern's
hash, and the entry's fix carries the decisive command or setting.
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

# (id, raw text, the entry's pattern as written in the data file, its form, a word its fix must hold)
CASES = [
    (
        "node-enospc-watchers",
        "> vite --host\n\n  VITE v5.2.11  ready in 412 ms\n"
        "node:internal/fs/watchers:247\n    const error = new UVException({\n"
        "Error: ENOSPC: System limit for number of file watchers reached, watch "
        "'/home/dev/work/shop/node_modules/.vite/deps'\n"
        "    at FSWatcher.<computed> [as _handle] (node:internal/fs/watchers:247:19)\n"
        "    at Object.watch (node:fs:2343:34) {\n  errno: -28,\n  code: 'ENOSPC'\n}",
        "Error: ENOSPC: System limit for number of file watchers reached, watch "
        "'/home/app/project/src'",
        Form.SPECIFIC,
        "max_user_watches",
    ),
    (
        "rollup-optional-native",
        "$ npm run build\n\n> web@0.1.0 build\n> vite build\n\n"
        "/srv/ci/builds/4471/web/node_modules/rollup/dist/native.js:59\n"
        "                throw new Error(\n"
        "Error: Cannot find module @rollup/rollup-linux-x64-gnu. npm has a bug related to "
        "optional dependencies (https://github.com/npm/cli/issues/4828). Please try `npm i` again "
        "after removing both package-lock.json and node_modules directory.\n"
        "    at requireWithFriendlyError (/srv/ci/builds/4471/web/node_modules/rollup/dist/"
        "native.js:59:9)",
        "Error: Cannot find module @rollup/rollup-linux-x64-gnu. npm has a bug related to "
        "optional dependencies (https://github.com/npm/cli/issues/4828). Please try `npm i` again "
        "after removing both package-lock.json and node_modules directory.",
        Form.SPECIFIC,
        "package-lock.json",
    ),
    (
        "sharp-linux-runtime",
        "/srv/api/node_modules/sharp/lib/sharp.js:114\n  throw new Error(help.join('\\n'));\n\n"
        'Error: Could not load the "sharp" module using the linux-x64 runtime\n'
        "Possible solutions:\n- Ensure optional dependencies can be installed:\n"
        "    npm install --include=optional sharp",
        'Error: Could not load the "sharp" module using the linux-x64 runtime',
        Form.SPECIFIC,
        "--include=optional",
    ),
    (
        "native-abi-mismatch",
        "Error: The module '/opt/bot/node_modules/better-sqlite3/build/Release/"
        "better_sqlite3.node' was compiled against a different Node.js version using "
        "NODE_MODULE_VERSION 93. This version of Node.js requires NODE_MODULE_VERSION 108. "
        "Please try re-compiling or re-installing the module (for instance, using `npm rebuild` "
        "or `npm install`).\n    at Module._extensions..node (node:internal/modules/cjs/"
        "loader:1340:18)",
        "Error: The module '/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node' "
        "was compiled against a different Node.js version using NODE_MODULE_VERSION 93. This "
        "version of Node.js requires NODE_MODULE_VERSION 108. Please try re-compiling or "
        "re-installing the module (for instance, using `npm rebuild` or `npm install`).",
        Form.GENERIC,
        "npm rebuild",
    ),
    (
        "npm10-git-dependency",
        "npm error code 128\nnpm error An unknown git error occurred\n"
        "npm error command git --no-replace-objects ls-remote ssh://git@github.com/acme/ui.git\n"
        "npm error git@github.com: Permission denied (publickey).\n"
        "npm error A complete log of this run can be found in: /root/.npm/_logs/"
        "2025-03-02T10_11_12_000Z-debug-0.log",
        "npm error code 128",
        Form.SPECIFIC,
        "git ls-remote",
    ),
    (
        "npm-eai-again",
        "npm ERR! code EAI_AGAIN\nnpm ERR! syscall getaddrinfo\n"
        "npm ERR! errno EAI_AGAIN\nnpm ERR! request to https://registry.npmjs.org/express failed, "
        "reason: getaddrinfo EAI_AGAIN registry.npmjs.org",
        "npm code EAI_AGAIN",
        Form.CODE,
        "nslookup",
    ),
    (
        "npm-ideal-tree-root",
        "Step 4/6 : RUN npm install\n ---> Running in 3f2a9c1d7b8e\n"
        'npm ERR! Tracker "idealTree" already exists\n\n'
        "npm ERR! A complete log of this run can be found in:\n"
        "npm ERR!     /root/.npm/_logs/2024-01-01T00_00_00_000Z-debug-0.log",
        'npm error Tracker "idealTree" already exists',
        Form.SPECIFIC,
        "WORKDIR",
    ),
    (
        "pnpm-ignored-builds",
        "Done in 3.2s\n ERR_PNPM_IGNORED_BUILDS  Ignored build scripts: esbuild@0.25.0, "
        'sharp@0.34.1.\nRun "pnpm approve-builds" to pick which dependencies should be allowed '
        "to run scripts.",
        "ERR_PNPM_IGNORED_BUILDS",
        Form.CODE,
        "approve-builds",
    ),
    (
        "yarn-classic-timeout",
        "yarn install v1.22.22\n[1/4] Resolving packages...\n[2/4] Fetching packages...\n"
        'error An unexpected error occurred: "https://registry.yarnpkg.com/@mui/icons-material/'
        '-/icons-material-5.16.7.tgz: ESOCKETTIMEDOUT".\n'
        "info If you think this is a bug, please open a bug report with the information provided "
        'in "/app/yarn-error.log".',
        'error An unexpected error occurred: "https://registry.yarnpkg.com/@mui/material/-/'
        'material-5.15.0.tgz: ESOCKETTIMEDOUT".',
        Form.SPECIFIC,
        "--network-timeout",
    ),
    (
        "gyp-visual-studio-npm10",
        "npm error gyp info find Python using Python version 3.12.4 found at "
        '"C:\\Python312\\python.exe"\n'
        "npm error gyp ERR! find VS could not find a version of Visual Studio 2017 or newer to use\n"
        "npm error gyp ERR! configure error",
        "npm error gyp ERR! find VS could not find a version of Visual Studio 2017 or newer to use",
        Form.SPECIFIC,
        "Desktop development with C++",
    ),
    (
        "psycopg2-pg-config",
        "Collecting psycopg2==2.9.9\n  Downloading psycopg2-2.9.9.tar.gz (384 kB)\n"
        "  Preparing metadata (setup.py) ... error\n  error: subprocess-exited-with-error\n"
        "  × python setup.py egg_info did not run successfully.\n"
        "  │ exit code: 1\n  ╰─> [23 lines of output]\n      running egg_info\n"
        "      Error: pg_config executable not found.\n",
        "Error: pg_config executable not found.",
        Form.SPECIFIC,
        "psycopg2-binary",
    ),
    (
        "python-h-missing",
        "      building 'netifaces' extension\n"
        "      x86_64-linux-gnu-gcc -pthread -fPIC -I/usr/include/python3.11 -c netifaces.c -o "
        "build/temp.linux-x86_64-cpython-311/netifaces.o\n"
        "      netifaces.c:1:10: fatal error: Python.h: No such file or directory\n"
        "      compilation terminated.",
        "src/module.c:2:10: fatal error: Python.h: No such file or directory",
        Form.SPECIFIC,
        "python3-dev",
    ),
    (
        "mysqlclient-config",
        "      /bin/sh: 1: mysql_config: not found\n      Traceback (most recent call last):\n"
        '        File "/tmp/pip-install-8k2j/mysqlclient/setup_posix.py", line 31, in '
        "mysql_config\n      OSError: mysql_config not found",
        "OSError: mysql_config not found",
        Form.SPECIFIC,
        "default-libmysqlclient-dev",
    ),
    (
        "numpy2-array-api",
        "A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.1.0 as it may "
        'crash.\nTraceback (most recent call last):\n  File "/srv/app/run.py", line 3, in '
        "<module>\n    import pandas\nAttributeError: _ARRAY_API not found",
        "AttributeError: _ARRAY_API not found",
        Form.SPECIFIC,
        "numpy<2",
    ),
    (
        "import-name-bs4",
        'Traceback (most recent call last):\n  File "/home/u/scrape.py", line 2, in <module>\n'
        "    from bs4 import BeautifulSoup\nModuleNotFoundError: No module named 'bs4'",
        "ModuleNotFoundError: No module named 'bs4'",
        Form.SPECIFIC,
        "beautifulsoup4",
    ),
    (
        "httpx-proxies",
        '  File "/venv/lib/python3.11/site-packages/openai/_base_client.py", line 738, in '
        "__init__\n    super().__init__(**kwargs)\n"
        "TypeError: Client.__init__() got an unexpected keyword argument 'proxies'",
        "TypeError: Client.__init__() got an unexpected keyword argument 'proxies'",
        Form.SPECIFIC,
        "httpx",
    ),
    (
        "uv-locked",
        "$ uv sync --locked\nResolved 42 packages in 12ms\n"
        "error: The lockfile at `uv.lock` needs to be updated, but `--locked` was provided. To "
        "update the lockfile, run `uv lock`.",
        "error: The lockfile at `uv.lock` needs to be updated, but `--locked` was provided. To "
        "update the lockfile, run `uv lock`.",
        Form.SPECIFIC,
        "uv lock",
    ),
    (
        "conda-frozen-solve",
        "Collecting package metadata (current_repodata.json): done\n"
        "Solving environment: failed with initial frozen solve. Retrying with flexible solve.",
        "Solving environment: failed with initial frozen solve. Retrying with flexible solve.",
        Form.SPECIFIC,
        "libmamba",
    ),
    (
        "bundler-pg-native",
        "Installing pg 1.5.9 with native extensions\n"
        "Gem::Ext::BuildError: ERROR: Failed to build gem native extension.\n"
        "An error occurred while installing pg (1.5.9), and Bundler cannot continue.\n\n"
        "In Gemfile:\n  pg",
        "An error occurred while installing pg (1.5.4), and Bundler cannot continue.",
        Form.SPECIFIC,
        "libpq-dev",
    ),
    (
        "composer-ext-zip",
        "Your requirements could not be resolved to an installable set of packages.\n\n"
        "  Problem 1\n    - phpoffice/phpspreadsheet 1.29.2 requires ext-zip * -> it is missing "
        "from your system. Install or enable PHP's zip extension.",
        "phpoffice/phpspreadsheet 1.29.0 requires ext-zip * -> it is missing from your system. "
        "Install or enable PHP's zip extension.",
        Form.SPECIFIC,
        "docker-php-ext-install zip",
    ),
]


@pytest.mark.parametrize(
    ("case", "raw", "written", "form", "fix_word"), CASES, ids=[c[0] for c in CASES]
)
def test_noisy_text_reaches_its_entry(
    case: str, raw: str, written: str, form: Form, fix_word: str
) -> None:
    by_hash = {e.error_hash: e for e in load_error_knowledge()}
    stored = error_hash(normalise_line(written, form))
    assert stored in by_hash, f"{case}: no entry with pattern {written!r}"
    candidates = [error_hash(p) for p, _, _ in normalise_error(raw).candidate_patterns()]
    assert stored in candidates, (case, normalise_error(raw).candidate_patterns())
    entry = by_hash[stored]
    assert any(fix_word in step for step in entry.fix), (case, entry.fix)
    assert entry.sources and all(s.startswith("https://") for s in entry.sources)
