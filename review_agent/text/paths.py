"""What a path is: its language, and whether it is a test, a script, a lock file, vendored."""

from __future__ import annotations

import fnmatch
import posixpath
import re

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
    ".cfg": "ini", ".xml": "xml",
}
NAMED: dict[str, str] = {
    "Gemfile": "ruby", "Rakefile": "ruby", "Dockerfile": "dockerfile", "Makefile": "make",
    "makefile": "make", "GNUmakefile": "make",
}
JS_FAMILY = frozenset({"javascript", "typescript", "vue", "svelte"})
# languages whose files are program source (an edit to them can want a test)
SOURCE = frozenset({
    "python", "javascript", "typescript", "vue", "svelte", "go", "rust", "java", "kotlin",
    "scala", "swift", "dart", "csharp", "c", "cpp", "objc", "ruby", "php", "perl", "lua",
    "elixir",
})
DOCS = frozenset({"markdown", "rst", "text"})

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
_GENERATED_TEXT = re.compile(r"@generated\b|\bDO NOT EDIT\b|\bCode generated\b.*\bDO NOT EDIT\b"
                             r"|^\W*(auto-?generated|this file (is|was) (auto-?)?generated)\b",
                             re.IGNORECASE | re.MULTILINE)
_TEST_FILE = re.compile(
    r"(^test_.*|.*_tests?\.\w+|.*\.(test|spec)\.\w+|.*Tests?\.(java|kt|cs|swift|scala)"
    r"|conftest\.py|.*_spec\.rb)$")
_TEST_DIRS = frozenset({"test", "tests", "testing", "__tests__", "spec", "specs", "e2e",
                        "testdata", "fixtures"})
# places where printing to stdout is the point, not a leftover
_SCRIPT_DIRS = frozenset({"scripts", "script", "bin", "tools", "examples", "example",
                          "benchmarks", "benchmark", "bench", "docs", "doc", "demo", "demos",
                          "cli", "commands", "management", "samples", "cmd", "_examples"})
_SCRIPT_FILE = re.compile(r"^(__main__\.py|cli\.\w+|.*_cli\.\w+|cli_.*|main\.\w+|manage\.py"
                          r"|setup\.py|noxfile\.py|tasks\.py|fabfile\.py|.*\.config\.[cm]?[jt]s"
                          r"|gulpfile\.\w+|Gruntfile\.\w+)$")


def language_of(path: str) -> str:
    """The language of a path from its name, "" when unknown."""
    name = posixpath.basename(path)
    if name in NAMED:
        return NAMED[name]
    return LANGUAGES.get(posixpath.splitext(name)[1].lower(), "")


def parts(path: str) -> list[str]:
    return path.split("/")


def is_test_path(path: str) -> bool:
    """A test file: by name (test_x.py, x.spec.ts, FooTest.java) or under a tests/ directory."""
    segs = parts(path)
    return bool(_TEST_FILE.match(segs[-1])) or any(s in _TEST_DIRS for s in segs[:-1])


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
    """Generated-code markers in the first lines of a file (pass only its first lines)."""
    return bool(_GENERATED_TEXT.search(head))


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
