"""The error level is a gate: code is never a credential, an example in prose is `info`.

Each class is written from the lexical shapes of its languages: an expression (a name, a
dereference, a member access, a call, a concatenation with a name, an interpolation) given
to a credential-like name; a plain word or constant; a value in a comment, a docstring or a
multi-line string. Every value that could be a credential is still redacted, and a random
literal under the same names still blocks.
"""

from __future__ import annotations

import random

import pytest

from review_agent.secrets import hit_findings, redact, scan_text
from review_agent.secrets.examples import fill

RNG = random.Random(2121)


def _errors(text: str, path: str) -> list[str]:
    return [f.rule for f in hit_findings(scan_text(text, path)) if f.severity == "error"]


def _secret() -> str:
    """A random literal of letters and digits, as a generator makes them."""
    return fill("{N14}{D3}", RNG)


# (path, line): a credential-like name given an expression in code position
EXPRESSIONS = [
    ("cmd/serve/main.go", "\tcfg := Config{Secret: *secretFlagValue, Port: 8080}"),
    ("pkg/auth/client.go", "\tclient.SecretKey = &secretKeyFromVault"),
    ("pkg/auth/opts.go", "\t\tAPIToken:  *opts.tokenOverride,"),
    ("lib/deploy/client.rb", "    @api_token = Octokit::Client.new(access_token: token)"),
    ("lib/deploy/keys.rb", "    credentials = Aws::Credentials.new(key_id, secret)"),
    ("lib/deploy/session.rb", "    has_token = !session_token.to_s.strip.empty?"),
    ("app/models/user.rb", "  sig { params(token: String).returns(T::Boolean) }"),
    ("src/api/session.js", 'const url = base + "?token="+sessionTokenValue;'),
    ("src/store/auth.ts", "  sessionToken: session!.accessTokenValue,"),
    ("src/store/auth.ts", "  apiKey: tenant?.keys?.primary ?? fallbackKeyValue,"),
    ("src/main/java/a/Auth.java", "    Function<User, String> tokenOf = User::getAccessToken;"),
    ("src/main/kotlin/a/Auth.kt", "    val secretKey = settings?.signing?.secretKey"),
    ("src/lib.rs", "    let token = Token::from_env(&registry)?;"),
    ("src/main.rs", "    let auth_token = &*cfg.registry_token;"),
    ("app/client.py", '    headers["X"] = "api_key="+settings_api_key'),
    ("src/Auth/Guard.php", "        protected $token = self::DEFAULT_TOKEN_NAME;"),
    ("src/Auth/Guard.php", "        $this->rememberToken = Str::random(60);"),
    ("Api/Jobs/Scan.cs", "    cancellationToken: cancellationToken).ConfigureAwait(false);"),
    ("Api/Controllers/Auth.cs", "        var apiKey = _secrets!.Stripe.ApiKey;"),
    ("Sources/App/Login.swift", "        let secret = credentials?.clientSecret"),
    ("fastlane/Fastfile", "  upload(api_token: ci_upload_token, notify: true)"),
    # a source map holds the code it maps, in JSON strings ending lines with `\n`
    ("dist/client.min.js.map", '{"sourcesContent":["  token = stripBrackets(token);\\n'
                               '  send({ credentials: ok ? withCredentials : undefined\\n"]}'),
]


@pytest.mark.parametrize(("path", "line"), EXPRESSIONS, ids=[p for p, _ in EXPRESSIONS])
def test_an_expression_is_never_an_error(path: str, line: str) -> None:
    assert _errors(line + "\n", path) == []


# (path, line): an interpolation or a template built from names, inside a literal
TEMPLATES = [
    ("lib/notify.rb", '    cmd << "--header \'X-Auth-Token: #{params[:auth_token].strip}\'"'),
    ("lib/notify.ex", '    url = "https://x.internal/hook?token=#{conn.assigns.hook_token}"'),
    ("internal/client.go", '\tq := fmt.Sprintf("token=%v&page=%d&limit=%d", tok, p, n)'),
    ("src/client.c", '    snprintf(buf, n, "password=%s&user=%s", pw, user);'),
    ("src/Config.java", '        String accessKey = "service.%s.accessKey".formatted(name);'),
]


@pytest.mark.parametrize(("path", "line"), TEMPLATES, ids=[p for p, _ in TEMPLATES])
def test_a_template_of_names_is_never_an_error(path: str, line: str) -> None:
    assert _errors(line + "\n", path) == []


# (path, line): words, kebab/snake/dotted constants, sentences, names of things
WORDS = [
    ("src/constants.py", 'SESSION_TOKEN_COOKIE = "x-session-refresh-token"'),
    ("internal/auth/headers.go", 'const upstreamAuthToken = "x-upstream-auth-token"'),
    ("lib/scopes.rb", 'SECRET_SCOPE = "admin:read-secrets"'),
    ("charts/app/values.yaml", "  existingSecret: grafana-admin-secret"),
    ("src/Api/Claims.cs", '    public const string ApiKeyClaim = "Jellyfin-IsApiKeyClaim";'),
    ("src/theme.ts", "    token: 'support.function.magic-method',"),
    ("src/fetch.js", '  return fetch(url, { credentials: "cross-origin-isolated" });'),
    ("config/auth.php", "    'token' => 'remember-me-token',"),
    ("src/flags.rs", '    let secret = "docs-rs-upload-secret";'),
    ("locales/ja.json", '  "apiKeyMissing": "APIキーが設定されていません。",'),
    ("locales/ru.json", '  "apiKeyInvalid": "Недействительный ключ API",'),
    ("docker/compose.yml", "      - 'DB_PASSWORD=Winter2024'"),
    ("app/build.gradle", '    password = "letmein99"'),
    ("config/mail.yml", "  password: 123456abcdef"),
    ("src/ffmpeg.cs", '    filters.Add("overlay=eof_action=pass:repeatlast=0:format=yuv420p");'),
    ("lib/install.rb", "    SECRETS_ROOT = '/var/lib/app/secrets.d/current'"),
    ("src/TlsConfig.java", '    String privateKey = "classpath:certs/server/client-key.pem";'),
    # a credential's name in words and acronyms, or the name it is given to written out
    ("src/http/client.ts", "  xsrfToken: 'XSRF-TOKEN',"),
    ("internal/web/headers.go", '\tHeaderXAuthTokenV2 = "X-Auth-Token-V2"'),
    ("app/settings.py", 'CSRF_TOKEN = "X-CSRFToken"'),
    ("src/Cookies.java", '    static final String SESSION_SECRET = "session.Secret";'),
]


@pytest.mark.parametrize(("path", "line"), WORDS, ids=[p for p, _ in WORDS])
def test_words_and_constants_are_never_an_error(path: str, line: str) -> None:
    assert _errors(line + "\n", path) == []


def _comment_examples(value: str) -> list[tuple[str, str]]:
    return [
        ("src/client.py", f'def connect():\n    """Connect.\n\n    Example:\n\n'
                          f'        client = Client(api_key="{value}")\n    """\n'),
        ("lib/client.rb", f"# Usage:\n#   Client.new(password: \"{value}\").login\n"),
        ("src/login.js", f"/**\n * @example\n * login({{ token: '{value}' }})\n */\n"),
        ("pkg/api/doc.go", f'// Example:\n//\n//\tc := api.New(api.Config{{Secret: "{value}"}})\n'),
        ("src/main/java/a/Vcap.java",
         f"/**\n * <pre>\n * \"password\":\"{value}\"\n * </pre>\n */\n"),
        ("src/lib.rs", f'/// ```\n/// let token = "{value}";\n/// ```\n'),
        ("config/app.yaml", f"# password: {value}\nport: 8080\n"),
        ("deploy.sh", f"#   export API_TOKEN={value}\nset -e\n"),
        ("src/Auth.cs", f"/// <example>\n/// var c = new Client(apiKey: \"{value}\");\n"),
        ("src/auth.ts", f"const x = 1;\n/* e.g. {{ secret: \"{value}\" }} */\n"),
        ("src/embed.py", f'EXAMPLES = r"""\n- name: log in\n  password: "{value}"\n"""\n'),
    ]


@pytest.mark.parametrize("index", range(len(_comment_examples("x"))))
def test_an_example_in_a_comment_or_docstring_is_info_and_still_redacted(index: int) -> None:
    value = _secret()
    path, text = _comment_examples(value)[index]
    findings = hit_findings(scan_text(text, path))
    assert findings and all(f.severity == "info" for f in findings), findings
    assert "example" in findings[0].message and value not in findings[0].message
    assert value not in redact(text, path)[0]


def test_a_url_password_of_words_in_a_docstring_is_not_an_error() -> None:
    text = ('def parse(url):\n    """Split a URL such as\n'
            '    https://jo%40mail.example.org:an%20old%20phrase@db.internal/x\n    """\n')
    assert _errors(text, "src/urls.py") == []


@pytest.mark.parametrize(("path", "text"), [
    ("src/config.py", 'API_KEY = "{v}"\n'),
    ("internal/config.go", '\tapiKey := "{v}"\n'),
    ("lib/config.rb", 'API_TOKEN = "{v}"\n'),
    ("src/config.ts", "export const apiToken = '{v}';\n"),
    ("src/main/java/a/Keys.java", '    private static final String API_KEY = "{v}";\n'),
    ("src/keys.rs", 'const API_TOKEN: &str = "{v}";\n'),
    ("src/Keys.cs", '    public const string ApiKey = "{v}";\n'),
    ("config/keys.php", "    'api_key' => '{v}',\n"),
    ("config/app.yaml", "api_token: {v}\n"),
    (".env", "API_SECRET={v}\n"),
    ("src/url.py", 'URL = "https://api.internal/v1?apikey={v}"\n'),
    ("src/embed.py", 'x = 1  # noqa\nSECRET = "{v}"  # set at deploy\n'),
    # a credential word beside a generated part: not a name
    ("internal/auth.go", '\tsessionToken := "X-Token-{v}"\n'),
    ("lib/keys.rb", "API_SECRET = 'secret_{v}'\n"),
    ("src/keys.ts", "const apiKey = '{v}-key';\n"),
    ("src/keys.py", 'API_TOKEN = "{v}"  # nosec\n'),
    ("dist/client.min.js.map", '{{"sourcesContent":["const apiToken = \\"{v}\\";\\n"]}}\n'),
])
def test_a_random_literal_under_a_credential_name_still_blocks(path: str, text: str) -> None:
    value = _secret()
    assert _errors(text.format(v=value), path) == ["secret/generic-password-assignment"]


def test_a_provider_token_in_a_comment_still_blocks() -> None:
    token = fill("ghp_{N36}", RNG)
    assert _errors(f"# rotated: {token}\nx = 1\n", "src/app.py") == ["secret/github-pat"]
