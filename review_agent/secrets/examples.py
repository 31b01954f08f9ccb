"""One planted line per rule, with generated values in each provider's documented shape.

Values are random (seeded), never real credentials, and are built at run time so the
package's own source holds no secret for a scanner to find.
"""

from __future__ import annotations

import base64
import random
import re

from review_agent.secrets.examples_long_tail import LONG_TAIL, REDACT_ONLY

ALPHABETS = {
    "N": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
    "n": "abcdefghijklmnopqrstuvwxyz0123456789",
    "U": "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    "H": "0123456789abcdef",
    "X": "0123456789ABCDEF",
    "D": "0123456789",
    "B": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
    "W": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
    "Z": "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
    "z": "abcdefghijklmnopqrstuvwxyz234567",
    "A": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "P": "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
}
FIELD = re.compile(r"\{([A-Za-z])(\d*)\}")
PEM = ("-----BEGIN {K}PRIVATE KEY-----\n{B64}\n{B64}\n{B64}\n{B40}==\n"
       "-----END {K}PRIVATE KEY-----")

# rule id -> a line of text holding one secret of that rule. {G} is a UUID.
TEMPLATES: dict[str, str] = {
    "aws-access-key-id": "aws_access_key_id = AKIA{Z16}",
    "aws-secret-access-key": "aws_secret_access_key = {B40}",
    "aws-secret-key-pair": 'key_id = "AKIA{Z16}"\nkey = "{B40}"',
    "aws-session-token": "aws_session_token = FwoGZXIvYXdzE{B150}",
    "aws-appsync-api-key": "  apiKey: 'da2-{n26}',",
    "azure-storage-account-key": "DefaultEndpointsProtocol=https;AccountName=acct;"
                                 "AccountKey={B86}==;EndpointSuffix=core.windows.net",
    "azure-ad-client-secret": "AZURE_CLIENT_SECRET={N3}{D1}Q~{N34}",
    "azure-client-secret-pair": 'AZURE_TENANT_ID={G}\nAZURE_APP_KEY="{N40}"',
    "azure-sas-token": "https://acct.blob.core.windows.net/c?sv=2021-06-08&ss=b&sp=rl"
                       "&se=2026-01-01&sig={N43}%3D",
    "azure-devops-pat": "AZURE_DEVOPS_PAT={z52}",
    "azure-cosmos-key": "COSMOS_MASTER_KEY={B86}==",
    "azure-function-key": "x-functions-key: {N54}==",
    "gcp-api-key": "GOOGLE_API_KEY=AIza{W35}",
    "gcp-service-account-key": '  "private_key_id": "{H40}",',
    "google-oauth-client-secret": '"client_secret": "GOCSPX-{W28}"',
    "google-oauth-access-token": 'creds = "ya29.{W60}"',
    "google-oauth-refresh-token": "refresh: 1//0{W60}",
    "firebase-cloud-messaging-key": "FCM_SERVER_KEY=AAAA{W7}:APA91b{W134}",
    "alibaba-access-key-id": "ALIBABA_ACCESS_KEY_ID=LTAI{N16}",
    "alibaba-access-key-secret": 'aliyun_access_key_secret = "{N30}"',
    "tencent-secret-id": "TENCENT_SECRET_ID=AKID{N32}",
    "ibm-cloud-api-key": "IBM_CLOUD_API_KEY={N44}",
    "digitalocean-token": "DO_TOKEN=dop_v1_{H64}",
    "heroku-api-key": "HEROKU_API_KEY=HRKU-{W60}",
    "heroku-api-key-legacy": 'heroku_api_key = "{G}"',
    "linode-token": "LINODE_TOKEN={H64}",
    "vultr-api-key": "VULTR_API_KEY={U36}",
    "scaleway-access-key": "SCW_ACCESS_KEY=SCW{U17}",
    "cloudflare-api-token": "CLOUDFLARE_API_TOKEN={N40}",
    "cloudflare-origin-ca-key": 'origin_ca_key = "v1.0-{H24}-{H146}"',
    "fastly-api-token": "FASTLY_API_TOKEN={N32}",
    "netlify-token": "NETLIFY_AUTH_TOKEN=nfp_{N36}",
    "vercel-token": "VERCEL_TOKEN={N24}",
    "supabase-token": "SUPABASE_ACCESS_TOKEN=sbp_{H40}",
    "flyio-token": 'FLY_API_TOKEN="FlyV1 fm2_{B80}"',
    "doppler-token": "DOPPLER_TOKEN=dp.pt.{N43}",
    "vault-token": "VAULT_TOKEN=hvs.{N90}",
    "terraform-cloud-token": 'token = "{N14}.atlasv1.{N67}"',
    "pulumi-token": "PULUMI_ACCESS_TOKEN=pul-{H40}",
    "databricks-token": "DATABRICKS_TOKEN=dapi{H32}",
    "planetscale-token": "PLANETSCALE_TOKEN=pscale_tkn_{N43}",
    "okta-api-token": "OKTA_API_TOKEN=00{N40}",
    "salesforce-session-id": "SF_SESSION=00D{N15}!{N90}",
    "vault-token-legacy": "VAULT_TOKEN=s.{N24}",
    "azure-identifiable-key": "AZURE_OPENAI_KEY={N52}JQQJ99{N28}",
    "render-api-key": "RENDER_API_KEY=rnd_{N32}",
    "age-secret-key": "AGE-SECRET-KEY-1{U58}",
    "kubernetes-token": "kubernetes_token: eyJ{N40}.{N300}",
    "github-pat": "GITHUB_TOKEN=ghp_{N36}",
    "github-oauth-token": "auth = 'gho_{N36}'",
    "github-app-token": "installation = 'ghs_{N36}'",
    "github-refresh-token": "refresh = 'ghr_{N76}'",
    "github-fine-grained-pat": "GH_PAT=github_pat_{N22}_{N59}",
    "gitlab-pat": "GITLAB_TOKEN=glpat-{N20}",
    "gitlab-pipeline-trigger-token": "trigger: glptt-{H40}",
    "gitlab-runner-token": "runner: glrt-{N20}",
    "gitlab-deploy-token": "deploy: gldt-{N20}",
    "gitlab-other-token": "feed: glft-{N20}",
    "atlassian-api-token": "ATLASSIAN_TOKEN=ATATT3{N186}",
    "atlassian-api-token-legacy": "JIRA_API_TOKEN={N24}",
    "bitbucket-app-password": "BITBUCKET_APP_PASSWORD=ATBB{N32}",
    "sourcegraph-token": "SRC_ACCESS_TOKEN=sgp_{H40}",
    "gitea-token": "GITEA_TOKEN={H40}",
    "slack-bot-token": "SLACK_BOT_TOKEN=xoxb-{D12}-{D13}-{N24}",
    "twitch-stream-key": "STREAM_KEY=live_{D9}_{N30}",
    "slack-user-token": "SLACK_USER_TOKEN=xoxp-{D12}-{D12}-{D12}-{H32}",
    "slack-app-token": "SLACK_APP_TOKEN=xapp-1-A{U10}-{D13}-{H64}",
    "slack-config-token": "SLACK_CONFIG_TOKEN=xoxe.xoxp-1-{N150}",
    "slack-legacy-token": "SLACK_LEGACY=xoxa-{D11}-{N40}",
    "slack-webhook-url": "url = 'https://hooks.slack.com/services/T{U10}/B{U10}/{N24}'",
    "discord-bot-token": "DISCORD_BOT_TOKEN=M{N23}.{N6}.{N27}",
    "discord-webhook-url": "https://discord.com/api/webhooks/{D18}/{N68}",
    "telegram-bot-token": "TELEGRAM_BOT_TOKEN={D10}:AA{N33}",
    "teams-webhook-url": "https://contoso.webhook.office.com/webhookb2/{G}@{G}/IncomingWebhook/"
                         "{H32}/{G}",
    "twilio-auth-token": "TWILIO_AUTH_TOKEN={H32}",
    "twilio-api-key": "TWILIO_API_KEY=SK{H32}",
    "mattermost-token": "MATTERMOST_TOKEN={n26}",
    "zoom-secret": "ZOOM_CLIENT_SECRET={N32}",
    "intercom-token": "INTERCOM_ACCESS_TOKEN=dG9rO{N60}",
    "line-channel-token": "LINE_CHANNEL_ACCESS_TOKEN={B171}=",
    "paystack-secret-key": "PAYSTACK_SECRET_KEY=sk_live_{H40}",
    "stripe-secret-key": "STRIPE_KEY=sk_live_{N32}",
    "stripe-webhook-secret": "STRIPE_WEBHOOK_SECRET=whsec_{N32}",
    "square-access-token": "SQUARE_ACCESS_TOKEN=EAAA{N60}",
    "square-oauth-secret": "SQUARE_SECRET=sq0csp-{N43}",
    "braintree-access-token": "BT=access_token$production${n16}${H32}",
    "shopify-token": "SHOPIFY_TOKEN=shpat_{H32}",
    "flutterwave-secret-key": "FLW=FLWSECK-{H32}-X",
    "plaid-access-token": "PLAID=access-sandbox-{G}",
    "gocardless-token": "GOCARDLESS_ACCESS_TOKEN=live_{N40}",
    "adyen-api-key": "ADYEN_API_KEY=AQE{N100}",
    "coinbase-key": '"name": "organizations/{G}/apiKeys/{G}"',
    "razorpay-secret": "RAZORPAY=rzp_live_{N14}",
    "mollie-api-key": "MOLLIE_API_KEY=live_{N30}",
    "sendgrid-api-key": "SENDGRID_API_KEY=SG.{N22}.{N43}",
    "mailgun-api-key": "MAILGUN_API_KEY=key-{H32}",
    "mailchimp-api-key": "MAILCHIMP_KEY={H32}-us6",
    "postmark-token": "POSTMARK_SERVER_TOKEN={G}",
    "mailjet-key": "MAILJET_API_SECRET={H32}",
    "brevo-api-key": "BREVO=xkeysib-{H64}-{N16}",
    "mandrill-api-key": "MANDRILL_KEY=md-{N22}",
    "sparkpost-api-key": "SPARKPOST_API_KEY={H40}",
    "resend-api-key": "RESEND_API_KEY=re_{N8}_{N24}",
    "mailersend-token": "MAILERSEND=mlsn.{H64}",
    "npm-token": "NPM_TOKEN=npm_{N36}",
    "pypi-token": "password = pypi-AgEIcHlwaS5vcmc{W70}",
    "rubygems-api-key": "GEM_HOST_API_KEY=rubygems_{H48}",
    "nuget-api-key": "NUGET_KEY=oy2{n43}",
    "crates-io-token": "CARGO_REGISTRY_TOKEN=cio{N32}",
    "dockerhub-token": "DOCKERHUB=dckr_pat_{N27}",
    "artifactory-api-key": "ARTIFACTORY=AKCp{N69}",
    "artifactory-reference-token": "JFROG=cmVmdGtu{N56}",
    "clojars-token": "CLOJARS=CLOJARS_{n60}",
    "octopus-deploy-api-key": "OCTOPUS_KEY=API-{U26}",
    "github-npm-registry-token": "//npm.pkg.github.com/:_authToken={N36}",
    "hex-pm-key": "HEX_API_KEY={H32}",
    "gradle-publish-key": "gradle.publish.key={N32}",
    "openai-api-key": "OPENAI_API_KEY=sk-{N20}T3BlbkFJ{N20}",
    "openai-project-key": "OPENAI_API_KEY=sk-proj-{N120}",
    "anthropic-api-key": "ANTHROPIC_API_KEY=sk-ant-api03-{N93}AA",
    "huggingface-token": "HF_TOKEN=hf_{N34}",
    "groq-api-key": "GROQ_API_KEY=gsk_{N52}",
    "replicate-api-token": "REPLICATE_API_TOKEN=r8_{N37}",
    "cohere-api-key": "COHERE_API_KEY={N40}",
    "mistral-api-key": "MISTRAL_API_KEY={N32}",
    "perplexity-api-key": "PPLX=pplx-{N48}",
    "xai-api-key": "XAI=xai-{N80}",
    "deepseek-api-key": "DEEPSEEK_API_KEY=sk-{H32}",
    "openrouter-api-key": "OPENROUTER=sk-or-v1-{H64}",
    "langsmith-api-key": "LANGSMITH=lsv2_pt_{H32}_{H10}",
    "tavily-api-key": "TAVILY=tvly-{N32}",
    "firecrawl-api-key": "FIRECRAWL=fc-{H32}",
    "jina-api-key": "JINA=jina_{H32}{N30}",
    "pinecone-api-key": "PINECONE=pcsk_{N60}",
    "together-api-key": "TOGETHER_API_KEY={H64}",
    "elevenlabs-api-key": "ELEVENLABS_API_KEY=sk_{H48}",
    "assemblyai-api-key": "ASSEMBLYAI_API_KEY={H32}",
    "fireworks-api-key": "FIREWORKS=fw_{N24}",
    "wandb-api-key": "WANDB_API_KEY={H40}",
    "kagi-api-key": "KAGI_API_KEY={N11}.{N32}",
    "adafruit-io-key": "ADAFRUIT_IO_KEY=aio_{N28}",
    "dependency-track-api-key": "DTRACK=odt_{N32}",
    "mapbox-token": "MAPBOX=sk.eyJ{N40}.{N22}",
    "facebook-app-secret": "facebook_app_secret = '{H32}'",
    "newrelic-license-key-legacy": "# New Relic\nlicense_key: {H40}",
    "datadog-api-key": "DD_API_KEY={H32}",
    "datadog-app-key": "DD_APP_KEY={H40}",
    "newrelic-user-api-key": "NEW_RELIC_API_KEY=NRAK-{U27}",
    "newrelic-other-key": "NR_BROWSER=NRJS-{H19}",
    "newrelic-license-key": "NEW_RELIC_LICENSE_KEY={H36}NRAL",
    "sentry-token": "SENTRY_AUTH_TOKEN=sntryu_{H64}",
    "grafana-cloud-token": "GRAFANA=glc_{N60}",
    "grafana-service-account-token": "GRAFANA_SA=glsa_{N32}_{H8}",
    "grafana-api-key": "GRAFANA_KEY=eyJrIjoi{N80}",
    "honeycomb-api-key": "HONEYCOMB_API_KEY={N22}",
    "dynatrace-token": "DT=dt0c01.{U24}.{U64}",
    "splunk-hec-token": "SPLUNK_HEC_TOKEN={G}",
    "pagerduty-token": "PAGERDUTY_TOKEN=u+{N18}",
    "opsgenie-api-key": "OPSGENIE_API_KEY={G}",
    "bugsnag-api-key": "BUGSNAG_API_KEY={H32}",
    "rollbar-token": "ROLLBAR_ACCESS_TOKEN={H32}",
    "postman-api-key": "POSTMAN=PMAK-{H24}-{H34}",
    "sonarqube-token": "SONAR=sqp_{H40}",
    "sonarqube-token-legacy": "sonar.login={H40}",
    "codeclimate-token": "CC_TEST_REPORTER_ID={H64}",
    "logzio-token": "LOGZIO_TOKEN={A32}",
    "circleci-token": "CIRCLE_TOKEN={H40}",
    "buildkite-token": "BUILDKITE=bkua_{H40}",
    "travis-token": "TRAVIS_TOKEN={N22}",
    "mongodb-atlas-key": "MONGODB_ATLAS_PRIVATE_KEY={G}",
    "faunadb-secret": "FAUNA_SECRET=fn{N38}",
    "neon-api-key": "NEON=napi_{n64}",
    "upstash-token": "UPSTASH_REDIS_REST_TOKEN=A{N50}",
    "redislabs-api-key": "REDISLABS_API_KEY={N50}",
    "influxdb-token": "INFLUXDB_TOKEN={N86}==",
    "elastic-cloud-api-key": "ELASTIC_API_KEY={N20}:{N22}",
    "private-key": PEM.replace("{K}", "RSA "),
    "jwt": "auth = 'eyJhbGciOiJIUzI1NiJ9.eyJ{N40}.{N43}'",
    "database-url-credentials": "DATABASE_URL=postgres://app:{N16}@db.internal:5432/app",
    "url-credentials": "remote = https://deploy:{N16}@git.internal/repo.git",
    "connection-string-password": "Server=tcp:db.internal,1433;Database=app;User Id=sa;"
                                  "Pwd={N16};",
    "generic-password-assignment": 'db_password = "{N12}{D2}!"',
    "dockerfile-env-secret": "ENV DB_PASSWORD {N16}",
    "cli-secret-flag": "mytool login --password {N16}",
    "xml-secret-element": "<password>{N16}</password>",
    "xml-add-key-secret": '<add key="SmtpPassword" value="{N16}"/>',
    "network-credential": 'new NetworkCredential("bot@corp.internal", "{N16}")',
    "prose-password": "The password is '{N12}{D2}'",
    "wireguard-key": "PrivateKey = {B42}A=",
    "vault-unseal-key": "Unseal Key 1: {B44}",
    "kerberos-asrep-hash": "$krb5asrep$23$svc@corp.internal:{H32}${H120}",
    "netrc-password": "machine api.internal login bot password {N16}",
    "http-basic-auth": "Authorization: Basic {C}",
    "http-bearer-token": "Authorization: Bearer {N40}",
    "password-hash": "admin:$2b$12${P53}",
    "django-secret-key": 'SECRET_KEY = "django-insecure-{W50}"',
    "high-entropy-string": 'blob = "{N40}"',
    "mysql-cli-password": "mysql -h db.internal -u app -p{N12}{D2} shop",
    "sshpass-password": "sshpass -p '{N12}{D2}' ssh deploy@web.internal",
    "registry-login-password": "docker login -u ci -p {N12}{D2} registry.internal",
    "curl-user-password": "curl -fsS -u deploy:{N12}{D2} https://api.internal/v1/ping",
    "htpasswd-password": "htpasswd -bc /etc/nginx/.htpasswd admin {N12}{D2}",
    "redis-cli-password": "redis-cli -h cache.internal -a {N12}{D2} ping",
}
TEMPLATES.update(LONG_TAIL)
__all__ = ["EXTRA", "REDACT_ONLY", "TEMPLATES", "fill", "planted_examples"]

# Further kinds for corpora: every private key label, unquoted config forms.
EXTRA: tuple[tuple[str, str], ...] = (
    ("private-key", PEM.replace("{K}", "")),
    ("private-key", PEM.replace("{K}", "EC ")),
    ("private-key", PEM.replace("{K}", "OPENSSH ")),
    ("private-key", PEM.replace("{K}", "ENCRYPTED ")),
    ("private-key", PEM.replace("{K}", "DSA ")),
    ("private-key", PEM.replace("{K}", "PGP ").replace("KEY-----", "KEY BLOCK-----")),
    ("generic-password-assignment", "export DB_PASSWORD={N14}{D2}"),
    ("generic-password-assignment", "  password: {N10}{D3}"),
    ("generic-password-assignment", "api_secret = {N18}"),
    ("generic-password-assignment", '"client_secret": "{N30}"'),
    ("generic-password-assignment", "ENV API_TOKEN={N24}"),
)


def fill(template: str, rng: random.Random) -> str:
    """Replace each {Xn} by n random characters of alphabet X, {G} by a UUID and {C} by
    HTTP Basic credentials (base64 of a random `user:password`)."""
    def one(m: re.Match[str]) -> str:
        code, count = m.group(1), m.group(2)
        if code == "C":
            user = "".join(rng.choice(ALPHABETS["n"]) for _ in range(8))
            password = "".join(rng.choice(ALPHABETS["N"]) for _ in range(20))
            return base64.b64encode(f"{user}:{password}".encode()).decode()
        if code == "G":
            h = ALPHABETS["H"]
            return "-".join("".join(rng.choice(h) for _ in range(k)) for k in (8, 4, 4, 4, 12))
        return "".join(rng.choice(ALPHABETS[code]) for _ in range(int(count)))
    return FIELD.sub(one, template)


def planted_examples(seed: int = 20261129) -> list[tuple[str, str]]:
    """(rule id, text) pairs: at least one per rule, each holding one generated secret."""
    rng = random.Random(seed)
    out = [(rule, fill(t, rng)) for rule, t in TEMPLATES.items()]
    out.extend((rule, fill(t, rng)) for rule, t in EXTRA)
    return out
