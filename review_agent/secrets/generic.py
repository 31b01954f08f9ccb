"""Format-independent rules: key blocks, JWTs, URLs, assignments, keyword-less entropy."""

from __future__ import annotations

from review_agent.secrets.rule import B, E, Rule

# Names whose value is a secret; matched case-insensitively inside a longer name. The
# bounded repeats keep a long run of name characters (minified code) linear, not quadratic.
SECRET_NAME = (
    r"(?<![A-Za-z0-9_.\-])[A-Za-z0-9_.\-]{0,40}?(?:password|passwd|passphrase|(?<![a-z])pass(?![a-z])|\bpwd|secret|token"
    r"|api[_.\-]?key|apikey|access[_.\-]?key|auth[_.\-]?(?:key|token|pass)|private[_.\-]?key"
    r"|credentials?|signing[_.\-]?key|encryption[_.\-]?key|master[_.\-]?key|session[_.\-]?key)"
    r"[A-Za-z0-9_.\-]{0,40}"
)
# A type annotation: `str`, `string | None`, `Option<String>`, Rust's `&str`/`&'static str`
TYPE = r"[&*]{0,2}(?:'[A-Za-z_]\w{0,20} )?[A-Za-z_][\w.\[\]|<>,:]{0,60}"
# `name = value`, `name: value`, `"name": "value"`, `name := value`, `name => value`,
# an optional type annotation (`password: str = ...`); never `==`, `!=`, `::` or `://`.
ASSIGN = (
    rf"(?i:{SECRET_NAME})(?:\\?[\"'])?(?:\s*:\s*{TYPE}(?=\s*=))?"
    r"\s*(?::=|=>|(?<![=!<>])=(?![=~>])|:(?![:/]))\s*"
    # a quote may be escaped (\" in a notebook or any JSON string holding code); an escaped
    # line break or tab there (`\n`, `\r`, `\t`) ends the value as the one it stands for would
    r"(?:\$?\\?[\"'`]|[\"'`]?)((?:[^\s\"'`,;\\]|\\(?![\"'`nrt])){4,200})"
)
DB_SCHEMES = (
    r"postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|oracle"
    r"|cockroachdb|clickhouse|couchdb|couchbase|neo4j(?:\+s)?|bolt|cassandra|db2|snowflake"
    r"|jdbc:[a-z0-9]+|memcached|influxdb|elasticsearch|nats|kafka|sqlalchemy|mysql\+\w+"
    r"|postgresql\+\w+"
)

GENERIC: tuple[Rule, ...] = (
    # Matched specially by the scanner: from the BEGIN line to its END line, removed whole.
    Rule("private-key", "Private key", ("----begin", "---- begin", "putty-user-key-file"),
         r"-{4,5} ?BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY(?: BLOCK)? ?-{4,5}"
         r"|PuTTY-User-Key-File-\d: ", group=0, kind="block"),
    Rule("jwt", "JSON Web Token", ("eyj",),
         rf"{B}(eyJ[A-Za-z0-9_\-]{{8,}}\.eyJ[A-Za-z0-9_\-]{{8,}}\.[A-Za-z0-9_\-]{{16,}}){E}",
         entropy=3.5),
    Rule("database-url-credentials", "Database URL with a password", ("://",),
         rf"(?i:\b(?:{DB_SCHEMES}))://[^\s:/@'\"<>]{{0,64}}:([^\s/@'\"<>]{{3,128}})@[^\s@'\"]",
         kind="url"),
    Rule("url-credentials", "URL with a password", ("://",),
         r"(?i:\b(?:https?|ftps?|sftp|smtps?|imaps?|pop3s?|ldaps?|git|ssh|svn|ws|wss|s3|nntp"
         r"|socks5h?|rtsp|xmpp|sip))://[^\s:/@'\"<>]{1,64}:([^\s/@'\"<>]{3,128})@[^\s@'\"]",
         kind="url"),
    Rule("connection-string-password", "Connection string password",
         ("server=", "data source=", "uid=", "user id=", "jdbc:", "host=", "dsn=", "database="),
         r"(?i:\b(?:password|pwd))\s*=\s*\{?([^;'\"\s{}]{3,128})", kind="assign",
         context=True),
    Rule("generic-password-assignment", "Password or secret assignment",
         ("pass", "pwd", "secret", "token", "api_key", "api-key", "apikey", "api.key",
          "access_key", "accesskey", "access-key", "access.key", "auth_key", "auth-key",
          "authkey", "auth.key", "private_key", "privatekey", "private-key", "private.key",
          "credential", "signing", "encryption", "master_key", "masterkey", "master-key",
          "master.key", "session_key", "sessionkey", "session-key", "session.key"),
         ASSIGN, kind="assign"),
    Rule("dockerfile-env-secret", "Secret in a Dockerfile ENV/ARG",
         ("env ", "arg ", "env\t", "arg\t"),
         rf"^[ \t]*(?:ENV|ARG)[ \t]+(?i:{SECRET_NAME})[ \t]+[\"']?([^\s\"'=][^\s\"']{{3,200}})",
         kind="assign"),
    Rule("cli-secret-flag", "Secret passed as a command-line flag",
         ("-password", "-pass", "-token", "-api-key", "-apikey", "-secret", "-client-secret",
          "-access-key"),
         r"(?i:(?<![\w-])--?(?:password|passwd|pass|token|api-?key|secret|client-secret|access-key"
         r"|secret-key|auth-token))[ \t]+[\"']?([^\s\"'\-$][^\s\"']{3,200})", kind="assign"),
    Rule("xml-secret-element", "Secret in an XML element",
         ("<password", "<secret", "<token", "<apikey", "<api_key", "<passphrase",
          "<clientsecret", "<client_secret"),
         r"<(?i:password|secret|token|apikey|api_key|passphrase|clientsecret|client_secret)>"
         r"\s*([^<\s]{4,200})\s*</", kind="assign"),
    Rule("xml-add-key-secret", "Secret in an XML <add key> setting", ("<add",),
         r'<add\s+key="[^"]{0,80}?(?i:password|passwd|secret|token|apikey|api_key)[^"]{0,80}"\s+'
         r'value="([^"\s]{4,200})"', kind="assign"),
    Rule("network-credential", "Password passed to NetworkCredential", ("networkcredential",),
         r'NetworkCredential\(\s*"[^"]*"\s*,\s*"([^"\s]{4,200})"', kind="assign"),
    Rule("prose-password", "Password given in prose", ("password",),
         r"(?i:\bpassword)(?: for [^\n]{1,40}?)? is:?\s*[\"'`]([^\"'`\s]{4,64})[\"'`]",
         kind="assign"),
    Rule("wireguard-key", "WireGuard private or preshared key", ("privatekey", "presharedkey"),
         r"(?i:\b(?:private|preshared)key)\s*=\s*([A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=)"),
    Rule("vault-unseal-key", "Vault unseal key", ("unseal key",),
         r"(?i:unseal key) \d+: ([A-Za-z0-9+/]{40,}={0,2})", entropy=4.0),
    Rule("kerberos-asrep-hash", "Kerberos AS-REP hash", ("$krb5asrep$",),
         r"(\$krb5asrep\$\d+\$[^:\s]+:[a-f0-9]{32}\$[a-f0-9]{64,})"),
    Rule("netrc-password", "netrc password", ("machine",),
         r"(?i:^[ \t]*password|\blogin[ \t]+\S+[ \t]+password)[ \t]+(\S{4,200})",
         kind="assign", window=2),
    Rule("http-basic-auth", "HTTP basic authorization credentials", ("basic",),
         # base64 of "user:password": digits or symbols and capitals, unlike English words
         r"(?i:\bbasic)[^\S\r\n]+((?=[A-Za-z0-9+/]*[0-9+/])(?=[A-Za-z0-9+/]*[A-Z])"
         r"[A-Za-z0-9+/]{12,}={0,2})(?![A-Za-z0-9+/=])", entropy=3.0, decodes="user:password"),
    Rule("http-bearer-token", "HTTP bearer token", ("bearer",),
         r"(?i:\bbearer)[^\S\r\n]+([A-Za-z0-9_\-.=/+~]{20,})(?![A-Za-z0-9_\-.=/+~])", entropy=3.5),
    Rule("password-hash", "Password hash", ("$2a$", "$2b$", "$2y$", "$6$", "$5$", "$argon2",
                                            "$1$", "$8$", "$9$"),
         r"(?<![\w$])(\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}|\$1\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22}"
         r"|\$[89]\$[./A-Za-z0-9]{14}\$[./A-Za-z0-9]{43}|\$[56]\$(?:rounds=\d+\$)?[./A-Za-z0-9]{8,16}"
         r"\$[./A-Za-z0-9]{43,86}|\$argon2(?:id|i|d)\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]{16,}"
         r"\$[A-Za-z0-9+/]{20,})"),
    Rule("django-secret-key", "Django SECRET_KEY", ("django-insecure-",),
         r"(django-insecure-[^\s\"']{30,})"),
    # Keyword-less: a quoted string of base64/token characters; run over the whole text.
    Rule("high-entropy-string", "High-entropy string", (),
         r"[\"'`]([A-Za-z0-9+/_\-]{20,256}={0,2})\\?[\"'`]", entropy=4.0, kind="entropy"),
)
