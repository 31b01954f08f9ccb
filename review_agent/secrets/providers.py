"""Provider token formats, written from each provider's documented token shape."""

from __future__ import annotations

from review_agent.secrets.rule import B, E, Rule, kv

# A value that follows a provider keyword on the same or the next line.
A = r"[A-Za-z0-9]"
W = r"[A-Za-z0-9_\-]"


def ctx(id: str, desc: str, keywords: tuple[str, ...], value: str, entropy: float = 3.0,
        window: int = 1) -> Rule:
    """A provider secret without a prefix: recognised by a keyword near a value of its shape."""
    return Rule(id, desc, keywords, rf"{B}({value}){E}", entropy=entropy, window=window)


def pre(id: str, desc: str, keywords: tuple[str, ...], pattern: str,
        entropy: float | None = None) -> Rule:
    """A provider secret with a documented literal prefix."""
    return Rule(id, desc, keywords, rf"{B}({pattern}){E}", entropy=entropy)


CLOUD: tuple[Rule, ...] = (
    Rule("aws-access-key-id", "AWS access key id", ("akia", "asia", "abia", "a3t"),
         rf"{B}((?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{{16}}){E}", entropy=2.5),
    Rule("aws-secret-access-key", "AWS secret access key",
         ("aws", "secret_access_key", "secretaccesskey", "secret-access-key"),
         kv(r"aws[\w.\-]{0,20}?(?:secret|sk)|secret[_\-]?access[_\-]?key",
            r"[A-Za-z0-9/+]{40}"), entropy=3.5),
    # The second half of a key pair: a 40-character secret within three lines of a key id.
    Rule("aws-secret-key-pair", "AWS secret access key (beside its key id)",
         ("akia", "asia"), r"(?<![A-Za-z0-9/+=])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
         entropy=4.0, window=3),
    pre("aws-session-token", "AWS session token", ("fwogzxiv", "iqojb3jp"),
        r"(?:FwoGZXIvYXdzE|IQoJb3JpZ2luX2Vj)[A-Za-z0-9/+=]{100,}"),
    pre("aws-appsync-api-key", "AWS AppSync API key", ("da2-",), r"da2-[a-z0-9]{26}"),
    # Microsoft's identifiable keys carry a fixed signature at character 52.
    pre("azure-identifiable-key", "Azure identifiable key", ("jqqj9",),
        r"[A-Za-z0-9]{52}JQQJ9[9DH][A-Za-z0-9]{26,30}"),
    Rule("azure-storage-account-key", "Azure storage account key",
         ("accountkey", "azure", "storage"),
         r"(?i:accountkey|azure[\w.\-]{0,30}key|storage[\w.\-]{0,20}key)[\"']?\s*(?:[:=]|:=)\s*"
         r"[\"']?([A-Za-z0-9+/]{80,100}={0,2})", entropy=4.0),
    # The second half of an Azure service principal: a random secret near its tenant/client id
    # (ids are hex or UUIDs, whose entropy stays under the threshold).
    ctx("azure-client-secret-pair", "Azure client secret (beside its tenant or client id)",
        ("azure_client_id", "azure_tenant_id", "tenant_id", "tenantid"),
        r"[A-Za-z0-9_.~\-]{32,44}", 4.2, window=3),
    pre("azure-ad-client-secret", "Azure AD client secret", ("q~",),
        r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}"),
    Rule("azure-sas-token", "Azure shared access signature", ("sig=",),
         r"[?&]sv=\d{4}-\d\d-\d\d&[^\s\"']*?sig=([A-Za-z0-9%+/]{40,}={0,2}(?:%3D){0,2})",
         entropy=3.5),
    ctx("azure-devops-pat", "Azure DevOps personal access token",
        ("azure", "devops", "vsts"), r"[a-z2-7]{52}", 3.8),
    Rule("azure-cosmos-key", "Azure Cosmos DB key", ("cosmos", "documentdb"),
         r"(?i:accountkey|cosmos[\w.\-]{0,20}key|master[\w.\-]{0,10}key)[\"']?\s*(?:[:=])\s*"
         r"[\"']?([A-Za-z0-9+/]{86}==)", entropy=4.0, window=1),
    ctx("azure-function-key", "Azure Functions key", ("x-functions-key", "azurewebsites.net"),
        r"[A-Za-z0-9_\-]{54}==", 4.0),
    pre("gcp-api-key", "Google API key", ("aiza",), r"AIza[0-9A-Za-z_\-]{35}"),
    Rule("gcp-service-account-key", "Google Cloud service account key id",
         ("private_key_id",), r'"private_key_id"\s*:\s*"([a-f0-9]{40})"'),
    pre("google-oauth-client-secret", "Google OAuth client secret", ("gocspx",),
        r"GOCSPX-[A-Za-z0-9_\-]{28}"),
    pre("google-oauth-access-token", "Google OAuth access token", ("ya29.",),
        r"ya29\.[0-9A-Za-z_\-]{30,}"),
    pre("google-oauth-refresh-token", "Google OAuth refresh token", ("1//0",),
        r"1//0[0-9A-Za-z_\-]{40,}"),
    pre("firebase-cloud-messaging-key", "Firebase Cloud Messaging server key", ("apa91b",),
        r"AAAA[A-Za-z0-9_\-]{7}:APA91b[A-Za-z0-9_\-]{134}"),
    pre("alibaba-access-key-id", "Alibaba Cloud AccessKey id", ("ltai",),
        r"LTAI[A-Za-z0-9]{12,20}", 3.0),
    ctx("alibaba-access-key-secret", "Alibaba Cloud AccessKey secret",
        ("alibaba", "aliyun", "ltai"), r"[A-Za-z0-9]{30}", 4.0, window=2),
    pre("tencent-secret-id", "Tencent Cloud SecretId", ("akid",), r"AKID[A-Za-z0-9]{32}", 3.5),
    ctx("ibm-cloud-api-key", "IBM Cloud API key", ("ibm", "bluemix"), r"[A-Za-z0-9_\-]{44}", 4.0),
    pre("digitalocean-token", "DigitalOcean token", ("dop_v1_", "doo_v1_", "dor_v1_"),
        r"do[opr]_v1_[a-f0-9]{64}"),
    pre("heroku-api-key", "Heroku API key", ("hrku-",), r"HRKU-[A-Za-z0-9_\-]{60}"),
    Rule("heroku-api-key-legacy", "Heroku API key", ("heroku",),
         kv("heroku[\\w.\\-]{0,20}(?:key|token|secret)",
            r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")),
    ctx("linode-token", "Linode/Akamai API token", ("linode",), r"[a-f0-9]{64}", 3.0),
    ctx("vultr-api-key", "Vultr API key", ("vultr",), r"[A-Z0-9]{36}", 3.5),
    pre("scaleway-access-key", "Scaleway access key", ("scw",), r"SCW[A-Z0-9]{17}", 3.0),
    ctx("cloudflare-api-token", "Cloudflare API token", ("cloudflare",),
        r"[A-Za-z0-9_\-]{40}", 4.0),
    pre("cloudflare-origin-ca-key", "Cloudflare Origin CA key", ("v1.0-",),
        r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}"),
    ctx("fastly-api-token", "Fastly API token", ("fastly",), r"[A-Za-z0-9_\-]{32}", 3.8),
    pre("netlify-token", "Netlify access token", ("nfp_",), r"nfp_[A-Za-z0-9]{36}"),
    ctx("vercel-token", "Vercel access token", ("vercel",), r"[A-Za-z0-9]{24}", 3.8),
    pre("supabase-token", "Supabase access token", ("sbp_", "sb_secret_"),
        r"(?:sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_\-]{31})"),
    pre("flyio-token", "Fly.io access token", ("flyv1", "fm2_", "fo1_"),
        r"(?:FlyV1 )?f[mo][12]_[A-Za-z0-9+/=_\-]{40,}"),
    pre("doppler-token", "Doppler token", ("dp.",),
        r"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_\-]{1,20}\.)?[A-Za-z0-9]{40,44}"),
    pre("vault-token", "HashiCorp Vault token", ("hvs.", "hvb.", "hvr."),
        r"hv[sbr]\.[A-Za-z0-9_\-]{24,}", 3.5),
    ctx("vault-token-legacy", "HashiCorp Vault token", ("vault",), r"s\.[A-Za-z0-9_\-]{24,}", 3.5),
    pre("terraform-cloud-token", "Terraform Cloud API token", ("atlasv1",),
        r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=\-]{60,70}"),
    pre("pulumi-token", "Pulumi access token", ("pul-",), r"pul-[a-f0-9]{40}"),
    pre("databricks-token", "Databricks access token", ("dapi",), r"dapi[a-f0-9]{32}(?:-\d)?"),
    pre("planetscale-token", "PlanetScale token", ("pscale_",),
        r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.\-]{32,64}"),
    ctx("okta-api-token", "Okta API token", ("okta",), r"00[A-Za-z0-9_\-]{40}", 3.5),
    pre("salesforce-session-id", "Salesforce session id", ("00d",),
        r"00D[A-Za-z0-9]{12,15}![A-Za-z0-9_.]{80,}"),
    pre("render-api-key", "Render API key", ("rnd_",), r"rnd_[A-Za-z0-9]{32}", 3.5),
    pre("age-secret-key", "age secret key", ("age-secret-key-1",),
        r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    ctx("kubernetes-token", "Kubernetes service account token",
        ("kubernetes", "kubeconfig", "serviceaccount"),
            r"eyJ[A-Za-z0-9_\-]{20,}\.[A-Za-z0-9_.\-]{40,}",
        4.0),
)

VCS: tuple[Rule, ...] = (
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
                                               "glagent-", "glwt-"),
        r"gl(?:ft|soat|cbt|oas|imt|agent|wt)-[A-Za-z0-9_\-]{20,}"),
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
