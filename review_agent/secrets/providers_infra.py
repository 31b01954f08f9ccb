"""Secrets managers, infrastructure-as-code, data platforms and databases."""

from __future__ import annotations

from review_agent.secrets.rule import UUID, Rule, ctx, pre

SECRETS_AND_IAC: tuple[Rule, ...] = (
    pre("doppler-token", "Doppler token", ("dp.",),
        r"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_\-]{1,20}\.)?[A-Za-z0-9]{40,44}"),
    pre("vault-token", "HashiCorp Vault token", ("hvs.", "hvb.", "hvr."),
        r"hv[sbr]\.[A-Za-z0-9_\-]{24,}", 3.5),
    ctx("vault-token-legacy", "HashiCorp Vault token", ("vault",), r"s\.[A-Za-z0-9_\-]{24,}", 3.5),
    pre("terraform-cloud-token", "Terraform Cloud API token", ("atlasv1",),
        r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=\-]{60,70}"),
    pre("pulumi-token", "Pulumi access token", ("pul-",), r"pul-[a-f0-9]{40}"),
    pre("databricks-token", "Databricks access token", ("dapi",), r"dapi[a-f0-9]{32}(?:-\d)?"),
    # Service tokens, passwords and OAuth tokens; passwords carry base64's = and /.
    Rule("planetscale-token", "PlanetScale token",
         ("pscale_tkn_", "pscale_pw_", "pscale_oauth_"),
         r"(?<![A-Za-z0-9_\-])(pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=+/\-]{32,64})"
         r"(?![A-Za-z0-9_.=+/\-])"),
    pre("age-secret-key", "age secret key", ("age-secret-key-1",),
        r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    ctx("kubernetes-token", "Kubernetes service account token",
        ("kubernetes", "kubeconfig", "serviceaccount"),
            r"eyJ[A-Za-z0-9_\-]{20,}\.[A-Za-z0-9_.\-]{40,}",
        4.0),
)

DATABASES: tuple[Rule, ...] = (
    ctx("mongodb-atlas-key", "MongoDB Atlas private API key", ("mongodb",),
        r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", 3.0),
    ctx("faunadb-secret", "FaunaDB secret", ("fauna",), r"fn[A-Za-z0-9_\-]{38}", 4.0),
    pre("neon-api-key", "Neon API key", ("napi_",), r"napi_[a-z0-9]{64}"),
    ctx("upstash-token", "Upstash token", ("upstash",),
        r"A[A-Za-z0-9]{3}[A-Za-z0-9=_\-]{30,}", 4.2),
    ctx("redislabs-api-key", "Redis Cloud API key", ("redislabs",),
        r"[A-Za-z0-9]{50}", 4.0),
    ctx("influxdb-token", "InfluxDB token", ("influx",), r"[A-Za-z0-9_\-]{86}==", 4.0),
    ctx("elastic-cloud-api-key", "Elastic API key", ("elastic",),
        r"[A-Za-z0-9_\-]{20}:[A-Za-z0-9_\-]{22}", 4.0),
)

DATA_AND_FLAGS: tuple[Rule, ...] = (
    ctx("hcp-client-secret", "HashiCorp Cloud Platform client secret", ("hcp_client",),
        r"[A-Za-z0-9_\-]{64}", 4.0),
    ctx("consul-token", "Consul ACL token", ("consul",), UUID),
    ctx("nomad-token", "Nomad ACL token", ("nomad",), UUID),
    pre("rancher-token", "Rancher API token", ("token-",), r"token-[a-z0-9]{5}:[a-z0-9]{54}"),
    # Harness tokens: pat.<account>.<token id>.<secret>, sat. for service accounts.
    pre("harness-token", "Harness access token", ("pat.", "sat."),
        r"(?:pat|sat)\.[A-Za-z0-9_\-]{22}\.[a-f0-9]{24}\.[A-Za-z0-9]{20}"),
    ctx("confluent-secret", "Confluent Cloud API secret", ("confluent",),
        r"[A-Za-z0-9+/]{64}", 4.0),
    ctx("convex-deploy-key", "Convex deploy key", ("convex",),
        r"(?:prod|preview|dev):[a-z0-9\-]+\|[A-Za-z0-9=]{40,}", 4.0),
    ctx("algolia-admin-key", "Algolia admin API key", ("algolia",), r"[a-f0-9]{32}"),
    ctx("typesense-key", "Typesense API key", ("typesense",), r"[A-Za-z0-9]{32}", 4.0),
    ctx("meilisearch-key", "Meilisearch key", ("meili",), r"[A-Za-z0-9_\-]{32,64}", 4.0),
    ctx("qdrant-key", "Qdrant API key", ("qdrant",), r"[A-Za-z0-9_\-|.]{32,}", 4.0),
    ctx("weaviate-key", "Weaviate API key", ("weaviate",), r"[A-Za-z0-9]{32,48}", 4.0),
    pre("prefect-api-key", "Prefect API key", ("pnu_", "pnb_"), r"pn[ub]_[A-Za-z0-9]{36}"),
    pre("dbt-cloud-token", "dbt Cloud token", ("dbtc_", "dbtu_"), r"dbt[cu]_[A-Za-z0-9_\-]{40,}"),
    pre("metabase-api-key", "Metabase API key", ("mb_",), r"mb_[A-Za-z0-9+/=]{40,}", 4.0),
    ctx("fivetran-secret", "Fivetran API secret", ("fivetran",), r"[A-Za-z0-9]{32}", 4.0),
    ctx("airbyte-secret", "Airbyte client secret", ("airbyte",), r"[A-Za-z0-9]{32,}", 4.0),
    ctx("looker-client-secret", "Looker API client secret", ("looker",), r"[A-Za-z0-9]{24}", 4.0),
    ctx("tableau-pat", "Tableau personal access token", ("tableau",),
        r"[A-Za-z0-9+/]{22}==:[A-Za-z0-9]{32}", 4.0),
    pre("flagsmith-key", "Flagsmith server-side key", ("ser.",), r"ser\.[A-Za-z0-9]{22}"),
    pre("launchdarkly-key", "LaunchDarkly key", ("sdk-", "api-", "mob-"),
        rf"(?:sdk|api|mob)-{UUID}"),
    pre("statsig-secret", "Statsig server secret key", ("secret-",),
        r"secret-[A-Za-z0-9]{43}", 4.0),
    ctx("unleash-token", "Unleash API token", ("unleash",),
        r"[*a-z0-9\-]+:[a-z0-9\-]+\.[a-f0-9]{64}"),
    ctx("split-io-key", "Split API key", ("split_api_key", "splitio", "split.io"),
        r"[a-z0-9]{36}", 3.8),
    pre("configcat-key", "ConfigCat SDK key", ("configcat-sdk-1/",),
        r"configcat-sdk-1/[A-Za-z0-9_\-]{22}/[A-Za-z0-9_\-]{22}"),
    ctx("optimizely-token", "Optimizely token", ("optimizely",), r"2:[A-Za-z0-9_\-]{40,}", 4.0),
    pre("posthog-personal-key", "PostHog personal API key", ("phx_",), r"phx_[A-Za-z0-9]{43}"),
    # Project keys (phc_) are meant for browsers: redacted, never reported.
    Rule("posthog-project-key", "PostHog project key", ("phc_",),
         r"(?<![A-Za-z0-9_\-])(phc_[A-Za-z0-9]{43})(?![A-Za-z0-9_\-])", precise=False),
    ctx("segment-write-key", "Segment write key",
        ("segment_write_key", "segment_key", "segment.io"), r"[A-Za-z0-9]{32}", 4.0),
    ctx("mixpanel-secret", "Mixpanel API secret", ("mixpanel",), r"[a-f0-9]{32}"),
    ctx("amplitude-key", "Amplitude API key",
        ("amplitude_api", "amplitude_key", "amplitude_secret"), r"[a-f0-9]{32}"),
)

INFRA: tuple[Rule, ...] = SECRETS_AND_IAC + DATA_AND_FLAGS
