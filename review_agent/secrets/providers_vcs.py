"""Source hosting: GitHub, GitLab, Atlassian, Sourcegraph, Gitea."""

from __future__ import annotations

from review_agent.secrets.rule import Rule, ctx, pre

HOSTS: tuple[Rule, ...] = (
    pre("github-pat", "GitHub personal access token", ("ghp_",), r"ghp_[A-Za-z0-9]{36}"),
    pre("github-oauth-token", "GitHub OAuth access token", ("gho_",), r"gho_[A-Za-z0-9]{36}"),
    pre("github-app-token", "GitHub App token", ("ghu_", "ghs_"), r"gh[us]_[A-Za-z0-9]{36}"),
    pre("github-refresh-token", "GitHub refresh token", ("ghr_",), r"ghr_[A-Za-z0-9]{36,76}"),
    pre("github-fine-grained-pat", "GitHub fine-grained personal access token",
        ("github_pat_",), r"github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}"),
    pre("gitlab-pat", "GitLab personal access token", ("glpat-",), r"glpat-[A-Za-z0-9_\-]{20,}"),
    pre("gitlab-pipeline-trigger-token", "GitLab pipeline trigger token", ("glptt-",),
        r"glptt-[a-f0-9]{40}"),
    pre("gitlab-runner-token", "GitLab runner token", ("gr1348941", "glrt-"),
        r"(?:GR1348941|glrt-)[A-Za-z0-9_\-]{20,}"),
    pre("gitlab-deploy-token", "GitLab deploy token", ("gldt-",), r"gldt-[A-Za-z0-9_\-]{20,}"),
    pre("gitlab-other-token", "GitLab token", ("glft-", "glsoat-", "glcbt-", "gloas-", "glimt-",
                                               "glagent-", "glwt-", "glffct-"),
        r"gl(?:ft|soat|cbt|oas|imt|agent|wt|ffct)-[A-Za-z0-9_\-]{20,}"),
    pre("atlassian-api-token", "Atlassian API token", ("atatt3",),
        r"ATATT3[A-Za-z0-9_=\-]{180,200}"),
    ctx("atlassian-api-token-legacy", "Atlassian API token",
        ("jira",), r"[A-Za-z0-9]{24}", 4.0, window=1),
    pre("bitbucket-app-password", "Bitbucket app password", ("atbb",),
        r"ATBB[A-Za-z0-9_=.\-]{32,}"),
    pre("sourcegraph-token", "Sourcegraph access token", ("sgp_",),
        r"sgp_(?:[a-f0-9]{16}_|local_)?[a-f0-9]{40}"),
    ctx("gitea-token", "Gitea access token", ("gitea",), r"[a-f0-9]{40}", 3.0),
)

CODE_ADJACENT: tuple[Rule, ...] = (
    Rule("gitlab-session-cookie", "GitLab session cookie", ("_gitlab_session=",),
         r"_gitlab_session=([a-f0-9]{32})(?![a-f0-9])"),
    # Sidekiq Pro/Enterprise gem credentials, in Bundler's environment variable or a URL.
    Rule("sidekiq-credentials", "Sidekiq Pro/Enterprise credentials", ("contribsys",),
         r"(?i:BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM)[\"']?\s*[=:]\s*[\"']?"
         r"([a-f0-9]{8}:[a-f0-9]{8})(?![a-f0-9])"),
    Rule("sidekiq-url", "Sidekiq Pro/Enterprise URL credentials", ("contribsys",),
         r"(?<![A-Za-z0-9])([a-f0-9]{8}:[a-f0-9]{8})@(?:gems|enterprise)\.contribsys\.com"),
    ctx("azure-devops-pat-new", "Azure DevOps personal access token", ("azure", "devops", "ado_"),
        r"[A-Za-z0-9]{52}AZDO[A-Za-z0-9]{24}", 4.0),
    ctx("bitbucket-client-secret", "Bitbucket client secret", ("bitbucket",), r"[A-Za-z0-9_\-]{32}",
        4.0),
    ctx("gerrit-http-password", "Gerrit HTTP password", ("gerrit",), r"[A-Za-z0-9+/]{42}", 4.0),
)

VCS: tuple[Rule, ...] = HOSTS + CODE_ADJACENT
