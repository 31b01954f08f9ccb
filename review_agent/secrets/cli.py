"""Passwords typed on a command line, from each tool's documented flags.

Shell history, CI YAML, Makefiles and READMEs hold these. Only a literal counts: `-p` alone
prompts, and `$VAR`, `${VAR}` or `"$VAR"` are environment lookups, never reported.
"""

from __future__ import annotations

from review_agent.secrets.rule import Rule

# A flag's argument, optionally quoted; never a variable (`$`), the next flag (`-`) or a
# shell operator. The quote is left out of the secret.
ARG = r"""["']?([^\s"'`$\-;&|<>(){}\\][^\s"'`;&|<>\\]{2,200})"""
# The rest of a command line before a flag: no comment, no second command; at most 512
# characters, so a line of many commands costs each one a bounded look, not the line's rest.
REST = r"[^\n#;&|]{0,512}?[ \t]"
# Start of a command name: not inside a longer word or path component.
CMD = r"(?<![\w\-.])"


def cli(id: str, desc: str, keywords: tuple[str, ...], command: str, flag: str) -> Rule:
    """`command ... FLAG VALUE`: the literal value of a password flag of `command`."""
    return Rule(id, desc, keywords, rf"{CMD}(?:{command})(?![\w\-]){REST}{flag}{ARG}",
                kind="assign")


CLI: tuple[Rule, ...] = (
    # mysql(1): `-pPASSWORD` with no space; `-p VALUE` prompts and VALUE is the database.
    cli("mysql-cli-password", "MySQL password on a command line", ("mysql", "mariadb"),
        r"mysql(?:dump|admin|import|show|check|pump|sh|binlog)?|mariadb(?:-dump|-admin)?",
        r"-p"),
    # sshpass(1): `-p PASSWORD` or `-pPASSWORD`.
    cli("sshpass-password", "Password given to sshpass -p", ("sshpass",), r"sshpass",
        r"-p[ \t]*"),
    # docker/podman/helm/oras login: `-p VALUE`, `--password VALUE`, `--password=VALUE`;
    # `--password-stdin` reads it from standard input.
    cli("registry-login-password", "Registry password on a `login` command line", ("login",),
        r"(?:docker|podman|buildah|skopeo|nerdctl|oras|helm(?:[ \t]+registry)?|crane)[ \t]+login",
        r"(?:-p|--password)(?:[ \t]+|=)"),
    # curl(1): `-u USER:PASSWORD` / `--user USER:PASSWORD`; `-u USER` alone prompts.
    cli("curl-user-password", "Password given to curl -u", ("curl",), r"curl",
        r"(?:-u|--user)(?:[ \t]*|=)[\"']?[^\s:\"'$]{1,64}:"),
    # htpasswd(1) batch mode: the password is the last argument (`-b FILE USER PW`,
    # `-nb USER PW`).
    Rule("htpasswd-password", "Password given to htpasswd -b", ("htpasswd",),
         r"(?<![\w\-.])htpasswd(?=[^\n]{0,512}?[ \t]-[A-Za-z]*b)"
         r"(?:[ \t]+[^\s;&|]{1,256}){2,8}?[ \t]+"
         r"[\"']?([^\s\"'`$\-;&|<>(){}\\][^\s\"'`;&|<>\\]{2,200})[\"']?[ \t]*(?=$|[;&|#)])",
         kind="assign"),
    # redis-cli(1): `-a PASSWORD` / `--pass PASSWORD`; `--askpass` prompts.
    cli("redis-cli-password", "Password given to redis-cli -a", ("redis-cli",), r"redis-cli",
        r"(?:-a|--pass)[ \t]+"),
)
