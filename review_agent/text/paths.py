"""What a path is: its language, and whether it is a test, a fixture, a script, a lock file,
vendored.

Tests and fixtures are recognised by each ecosystem's own conventions (see `is_test_path`
and `is_fixture_path`), never by a list of one project's directories.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Sequence

LANGUAGES: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".tsx": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".vue": "vue", ".svelte": "svelte",
    ".go": "go", ".rs": "rust", ".java": "java", ".kt": "kotlin", ".kts": "kotlin",
    ".scala": "scala", ".swift": "swift", ".dart": "dart", ".cs": "csharp",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp",
    ".hh": "cpp", ".hxx": "cpp", ".m": "objc", ".mm": "objc",
    ".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby", ".php": "php",
    ".sh": "shell", ".bash": "shell", ".zsh": "shell",
    ".pl": "perl", ".pm": "perl", ".lua": "lua", ".r": "r", ".ex": "elixir", ".exs": "elixir",
    ".sql": "sql", ".html": "html", ".htm": "html", ".css": "css", ".scss": "css",
    ".md": "markdown", ".markdown": "markdown", ".rst": "rst", ".txt": "text",
    ".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".json": "json", ".ini": "ini",
    ".cfg": "ini", ".xml": "xml", ".properties": "properties", ".env": "env",
    ".gradle": "groovy", ".groovy": "groovy", ".rbi": "ruby", ".podspec": "ruby", ".ru": "ruby",
}
NAMED: dict[str, str] = {
    "Gemfile": "ruby", "Rakefile": "ruby", "Dockerfile": "dockerfile", "Makefile": "make",
    "makefile": "make", "GNUmakefile": "make", "Containerfile": "dockerfile",
    "Jenkinsfile": "groovy",
    # Ruby DSLs named `<Tool>file` (Bundler, fastlane, CocoaPods, Homebrew, Danger, Guard, ...)
    **{f"{tool}file": "ruby" for tool in (
        "Fast", "App", "Match", "Plugin", "Deliver", "Snap", "Gym", "Scan", "Pod", "Brew",
        "Danger", "Guard", "Vagrant", "Berks", "Cap", "Puppet", "Thor", "Steep")},
}
# `#!/usr/bin/env ruby`, `#!/bin/sh`: the language of a file without a telling name
_SHEBANG = re.compile(r"#!\s*(?:\S*/)?(?:env\s+(?:-\S+\s+)*)?([A-Za-z]+)")
_INTERPRETERS = {"python": "python", "ruby": "ruby", "node": "javascript", "bash": "shell",
                 "sh": "shell", "zsh": "shell", "dash": "shell", "ksh": "shell", "perl": "perl",
                 "php": "php", "deno": "typescript", "bun": "javascript"}
JS_FAMILY = frozenset({"javascript", "typescript", "vue", "svelte"})
# languages whose files are program source (an edit to them can want a test)
SOURCE = frozenset({
    "python", "javascript", "typescript", "vue", "svelte", "go", "rust", "java", "kotlin",
    "scala", "swift", "dart", "csharp", "c", "cpp", "objc", "ruby", "php", "perl", "lua",
    "elixir",
})
DOCS = frozenset({"markdown", "rst", "text"})  # prose: a change to it wants no test

# lock file name -> the manifest names that declare what it pins
LOCK_MANIFESTS: dict[str, tuple[str, ...]] = {
    "package-lock.json": ("package.json",), "npm-shrinkwrap.json": ("package.json",),
    "yarn.lock": ("package.json",), "pnpm-lock.yaml": ("package.json",),
    "bun.lockb": ("package.json",), "bun.lock": ("package.json",),
    "poetry.lock": ("pyproject.toml",), "uv.lock": ("pyproject.toml",),
    "pdm.lock": ("pyproject.toml",), "Pipfile.lock": ("Pipfile",),
    "Cargo.lock": ("Cargo.toml",), "go.sum": ("go.mod",),
    "Gemfile.lock": ("Gemfile", "*.gemspec"), "composer.lock": ("composer.json",),
    "mix.lock": ("mix.exs",), "pubspec.lock": ("pubspec.yaml",),
    "Package.resolved": ("Package.swift",), "flake.lock": ("flake.nix",),
    "gradle.lockfile": ("build.gradle", "build.gradle.kts"),
    "packages.lock.json": ("*.csproj", "*.fsproj", "Directory.Packages.props"),
}
_VENDOR_DIRS = frozenset({"vendor", "_vendor", "vendored", "third_party", "third-party",
                          "node_modules", "bower_components"})
_GENERATED_NAME = re.compile(
    r"(_pb2(_grpc)?\.pyi?|\.pb\.go|_grpc\.pb\.go|\.pb\.(cc|h)|\.g\.dart|\.freezed\.dart"
    r"|\.designer\.cs|\.generated\.\w+|_generated\.go|_string\.go)$")
HEAD_CHARS = 1024  # where a generator's marker is looked for
_GENERATED_TEXT = re.compile(r"@generated\b|\bDO NOT EDIT\b|\bCode generated\b.*\bDO NOT EDIT\b"
                             r"|^\W*(auto-?generated|this file (is|was) (auto-?)?generated)\b",
                             re.IGNORECASE | re.MULTILINE)
# Test files by name: Python test_x.py / x_test.py, Go x_test.go, Ruby x_spec.rb and
# test/x_test.rb, JS/TS x.test.ts / x.spec.js, Java/Kotlin/C#/Swift FooTest(s), Java FooIT
# (failsafe), Scala FooSpec/FooSuite, PHP FooTest.php, C/C++ foo_unittest.cc, Elixir x_test.exs.
_TEST_FILE = re.compile(
    r"(^test_.*|.*_(?:unit)?tests?\.\w+|.*\.(test|spec)\.\w+"
    r"|.*(?:Tests?|IT|TestCase)\.(java|kt|kts|cs|swift|scala|groovy|php|fs|vb)"
    r"|.*(?:Spec|Suite)\.(scala|groovy|kt)|conftest\.py|.*_spec\.rb"
    # a test runner's setup module (`vitest.setup.ts`, `jestSetup.js`, `setupTests.ts`)
    r"|(?i:(?:vitest|jest|mocha|karma|playwright|test)[._-]?setup|setup[._-]?tests?)"
    r"(?:[._-]\w+)?\.[cm]?[jt]sx?)$")
# Directories that hold only tests or their data: Python/Ruby/PHP/Elixir test(s)/, Ruby and
# JS spec/, Jest __tests__/ and __mocks__/, Go testdata/, e2e and integration suites.
_TEST_DIRS = frozenset({"test", "tests", "testing", "__tests__", "__mocks__", "spec", "specs",
                        "e2e", "testdata", "test_data", "test-data", "fixtures", "fixture",
                        "__fixtures__", "integration", "integration-test", "integration-tests",
                        "integration_test", "integration_tests", "smoke-test", "smoke-tests",
                        "mocks", "cypress", "playwright"})
# A Gradle/Maven source set for tests (src/test, src/integrationTest, src/testFixtures,
# src/it); a .NET test project (Foo.Tests/, Foo.UnitTests/, Foo.Test/, ServerTests/); a
# suite directory (ui-tests/, acceptance_tests/).
_TEST_SOURCE_SET = re.compile(r"(?:test|tests|it)(?:[A-Z]\w*)?|[a-z][a-z0-9]*Tests?(?:[A-Z]\w*)?")
_TEST_PROJECT = re.compile(r".+\.(?:[A-Z][a-z]+)?Tests?|.+[-_]tests|[A-Z]\w*[a-z]Tests")
# Beyond tests, where a credential is a sample: examples, benchmarks, documentation,
# certificates made for the repository, templates meant to be copied (`.env.example`).
_SAMPLE_DIRS = frozenset({"examples", "example", "_examples", "samples", "sample", "demo",
                          "demos", "docs", "doc", "documentation", "benches", "bench",
                          "benchmarks", "benchmark", "certs", "stubs", "storybook"})
# Data and text, never a test by its name alone.
_DATA_SUFFIXES = (".yml", ".yaml", ".json", ".toml", ".ini", ".cfg", ".conf", ".xml", ".csv",
                  ".txt", ".md", ".rst", ".adoc", ".html", ".properties", ".lock")
_DOC_SUFFIXES = (".md", ".markdown", ".mdx", ".rst", ".adoc", ".asciidoc", ".txt.example")
_SAMPLE_NAME = re.compile(r"(?i).*[._-](?:example|sample|dist|template|tmpl)(?:\.\w+)?$"
                          r"|.*\.stories\.\w+$")
# places where printing to stdout is the point, not a leftover
_SCRIPT_DIRS = frozenset({"scripts", "script", "bin", "tools", "examples", "example",
                          "benchmarks", "benchmark", "bench", "docs", "doc", "demo", "demos",
                          "cli", "commands", "management", "samples", "cmd", "_examples",
                          # demo apps a project runs to try itself out (and tests drive)
                          "playground", "playgrounds", "sandbox", "sandboxes"})
_SCRIPT_FILE = re.compile(r"^(__main__\.py|cli\.\w+|.*_cli\.\w+|cli_.*|main\.\w+|manage\.py"
                          r"|setup\.py|noxfile\.py|tasks\.py|fabfile\.py|.*\.config\.[cm]?[jt]s"
                          r"|gulpfile\.\w+|Gruntfile\.\w+)$")


def language_of(path: str) -> str:
    """The language of a path from its name, "" when unknown."""
    name = posixpath.basename(path)
    if name in NAMED:
        return NAMED[name]
    if name.startswith(".env"):  # .env, .env.local, .env.production
        return "env"
    return LANGUAGES.get(posixpath.splitext(name)[1].lower(), "")


def shebang_language(first_line: str) -> str:
    """The language a `#!` line runs the file with, "" when there is none we know."""
    m = _SHEBANG.match(first_line)
    if m is None:
        return ""
    word = m.group(1).lower()
    return _INTERPRETERS.get(word.rstrip("0123456789."), "")


def parts(path: str) -> list[str]:
    return path.split("/")


def is_test_path(path: str) -> bool:
    """A test file by its ecosystem's convention: by name (test_x.py, x_test.go, x.spec.ts,
    FooTest.java, foo_spec.rb), under a tests directory (tests/, testdata/, __tests__/,
    spec/), in a test source set (src/test/, src/integrationTest/) or a .NET test project
    (Foo.Tests/)."""
    segs = parts(path)
    return bool(_TEST_FILE.match(segs[-1])) or _in_test_dir(segs[:-1])


def _in_test_dir(dirs: Sequence[str]) -> bool:
    for i, s in enumerate(dirs):
        if s.lower() in _TEST_DIRS or _TEST_PROJECT.fullmatch(s):
            return True
        if i and dirs[i - 1] == "src" and _TEST_SOURCE_SET.fullmatch(s):
            return True
    return False


def is_test_code(path: str) -> bool:
    """A test as the review rules read one: a test path (`is_test_path`) but for what a
    build ships (a Maven/Gradle production source set, `src/main/`, where documentation
    samples are named `FooTests.java`) and for data merely named like a test outside any
    tests directory (a changelog fragment `timedout_test.yml`): a test is code."""
    segs = parts(path)
    dirs = segs[:-1]
    if any(a == "src" and b == "main" for a, b in zip(dirs, dirs[1:], strict=False)):
        return False
    if _in_test_dir(dirs):
        return True
    return bool(_TEST_FILE.match(segs[-1])) and not segs[-1].lower().endswith(_DATA_SUFFIXES)


def is_fixture_path(path: str) -> bool:
    """Where a credential is a test fixture or a sample, not a leak: a test path
    (`is_test_path`), an example, benchmark, documentation or certificate directory, a
    documentation file, a template meant to be copied (`.env.example`, `config.yml.dist`)."""
    path = path.replace("\\", "/")
    segs = parts(path)
    name = segs[-1].lower()
    return (is_test_path(path) or any(s.lower() in _SAMPLE_DIRS for s in segs[:-1])
            or name.endswith(_DOC_SUFFIXES) or bool(_SAMPLE_NAME.fullmatch(name)))


# what a test file's name adds to the name of what it tests, by the conventions above
_TEST_AFFIX = re.compile(r"^test_|_(?:unit)?tests?$|_spec$|\.(?:test|spec)$"
                         r"|(?<=[a-z0-9])(?:Tests?|IT|TestCase|Spec|Suite)$")


def tested_stem(path: str) -> str:
    """The base name of what a test file tests: `encryptor` for `encryptor_spec.rb`,
    `Parser` for `ParserTest.java`, `app` for `test_app.py` or `app.test.ts`."""
    stem = posixpath.splitext(posixpath.basename(path))[0]
    return _TEST_AFFIX.sub("", stem) or stem


def is_test_file_name(path: str) -> bool:
    """Named like a test file (test_x.py, x_test.go, x.spec.ts), wherever it lives."""
    return bool(_TEST_FILE.match(parts(path)[-1])) and not path.endswith("conftest.py")


def is_script_path(path: str) -> bool:
    """A program entry point or helper script, where output to stdout is intended."""
    segs = parts(path)
    return bool(_SCRIPT_FILE.match(segs[-1])) or any(s in _SCRIPT_DIRS for s in segs[:-1])


def is_lock_file(path: str) -> bool:
    return posixpath.basename(path) in LOCK_MANIFESTS


def is_vendored(path: str) -> bool:
    return any(s in _VENDOR_DIRS for s in parts(path)[:-1])


def is_generated_name(path: str) -> bool:
    return bool(_GENERATED_NAME.search(posixpath.basename(path)))


def is_generated_text(head: str) -> bool:
    """Generated-code markers in the first lines of a file (pass only its first lines),
    within its first HEAD_CHARS characters, as far as the skip check reads a blob: a
    20 MB first line of minified code took the case-blind search 1.2 s. Every marker holds
    "generated" or "do not ed", and no letter of those has a case-blind match that
    `str.lower` leaves alone (as it leaves "ſ" and "ı", which match "s" and "i"): a head
    holding neither is passed over without the search."""
    head = head[:HEAD_CHARS]
    low = head.lower()
    if "generated" not in low and "do not ed" not in low:
        return False
    return _GENERATED_TEXT.search(head) is not None


def is_minified_name(path: str) -> bool:
    name = posixpath.basename(path)
    return name.endswith((".min.js", ".min.css", ".min.mjs", "-min.js"))


def matches_glob(path: str, pattern: str) -> bool:
    """fnmatch on the repo-relative path, with `**` and gitignore-like conveniences."""
    if pattern.endswith("/"):
        return path.startswith(pattern) or f"/{pattern}" in f"/{path}"
    if "/" not in pattern and fnmatch.fnmatchcase(posixpath.basename(path), pattern):
        return True
    if fnmatch.fnmatchcase(path, pattern):
        return True
    # "a/**/b" also matches "a/b", "**/x" also matches "x"
    squeezed = pattern.replace("/**/", "/").removeprefix("**/")
    return squeezed != pattern and fnmatch.fnmatchcase(path, squeezed)


def matches_any(path: str, patterns: tuple[str, ...]) -> bool:
    return any(matches_glob(path, p) for p in patterns)
