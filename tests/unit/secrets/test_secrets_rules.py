"""Per-rule tables: every rule has true examples it reports and false examples it ignores."""

from __future__ import annotations

import random
import re

import pytest

from review_agent.secrets import RULES, scan_text
from review_agent.secrets.examples import REDACT_ONLY, fill, planted_examples
from review_agent.secrets.examples_long_tail import LONG_TAIL
from review_agent.secrets.rule import compiled

# True examples beyond the planted ones: (rule, text, path).
TRUE: list[tuple[str, str, str]] = [
    ("generic-password-assignment", 'DB_PASSWORD="{N10}{D3}"', ".env"),
    ("generic-password-assignment", "DB_PASSWORD={N10}{D3}", ".env"),
    ("generic-password-assignment", "export API_TOKEN={N20}{D2}", "deploy.sh"),
    ("generic-password-assignment", "  password: {N10}{D3}", "config.yaml"),
    ("generic-password-assignment", '  "password": "{N10}{D3}",', "config.json"),
    ("generic-password-assignment", "password = {N10}{D3}", "settings.ini"),
    ("generic-password-assignment", "Use `API_SECRET={N16}{D2}` to log in.", "README.md"),
    ("generic-password-assignment", "ENV API_SECRET={N16}{D2}", "Dockerfile"),
    ("generic-password-assignment", 'password: str = "{N10}{D3}"', "app.py"),
    ("generic-password-assignment", "$db_pass = '{N10}{D3}';", "db.php"),
    ("generic-password-assignment", "REACT_APP_PASS={N10}{D3}", ".env"),
    ("private-key", "-----BEGIN OPENSSH PRIVATE KEY-----\n{B70}\n{B70}\n{B40}\n"
                    "-----END OPENSSH PRIVATE KEY-----", "id_ed25519"),
    ("private-key", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{B64}\n{B64}\n=abcd\n"
                    "-----END PGP PRIVATE KEY BLOCK-----", "key.asc"),
    ("private-key", '"private_key": "-----BEGIN PRIVATE KEY-----\\n{B64}\\n{B64}\\n'
                    '-----END PRIVATE KEY-----\\n",', "sa.json"),
    ("private-key", "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\n{B64}\n{B64}\n"
                    "---- END SSH2 ENCRYPTED PRIVATE KEY ----", "key.ssh2"),
    ("private-key", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPublic-Lines: 2\n"
                    "{B64}\n{B20}\nPrivate-Lines: 1\n{B44}\nPrivate-MAC: {H64}", "key.ppk"),
    ("private-key", "-----BEGIN EC PRIVATE KEY-----\n{B64}\n{B64}\n", "truncated.pem"),
    ("database-url-credentials", "mongodb+srv://svc:{N16}@cluster0.abcde.mongodb.net/db", "a.yml"),
    ("database-url-credentials", "redis://:{N16}@cache.internal:6379/0", "a.env"),
    ("url-credentials", "git clone https://bot:{N20}@git.internal/org/repo.git", "ci.sh"),
    ("aws-secret-access-key", '"SecretAccessKey": "{B40}"', "creds.json"),
    ("slack-webhook-url", "https://hooks.slack.com/workflows/T{U10}/A{U10}/{N24}", "a.txt"),
    ("jwt", "Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.eyJ{N60}.{N86}", "req.http"),
    ("cli-secret-flag", "Connect-VIServer -Server vc -User admin -Password {N10}{D2}!", "a.ps1"),
    ("high-entropy-string", "const K = '{N48}';", "app.js"),
    ("mysql-cli-password", "mysqldump -uroot -p'{N10}{D2}' shop > dump.sql", "Makefile"),
    ("mysql-cli-password", '  - mysql -h db -P3306 -u app -p"{N10}{D2}" -e "select 1"', "ci.yml"),
    ("generic-password-assignment", "mysql -u root --password={N10}{D2} shop", "run.sh"),
    ("sshpass-password", "sshpass -p{N10}{D2} scp a.tgz deploy@web:", "deploy.sh"),
    ("registry-login-password", "podman login --password={N10}{D2} -u ci quay.io", "ci.sh"),
    ("registry-login-password", "helm registry login ghcr.io -u bot --password {N10}{D2}", "ci.sh"),
    ("curl-user-password", "curl --user 'bot:{N10}{D2}' https://x.internal", "README.md"),
    ("htpasswd-password", "htpasswd -nb admin {N10}{D2}", "setup.sh"),
    ("htpasswd-password", 'RUN htpasswd -b -c /etc/pw admin "{N10}{D2}" && rm -rf /tmp',
     "Dockerfile"),
    ("redis-cli-password", "redis-cli --pass {N10}{D2} -n 2 keys '*'", "notes.md"),
    ("database-url-credentials", 'psql "postgresql://app:{N10}{D2}@db.internal/app"', "a.sh"),
]

# False examples: (rule, text, path); the rule must not fire on them in either tier.
FALSE: list[tuple[str, str, str]] = [
    ("aws-access-key-id", "AKIAIOSFODNN7EXAMPLE", "a.txt"),
    ("aws-access-key-id", "AKIA{Z10}", "a.txt"),
    ("aws-secret-access-key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
     "a.ini"),
    ("aws-secret-key-pair", 'key = "{B40}"', "a.py"),
    ("aws-session-token", "aws_session_token = FwoGZXIvYXdzE{B20}", "a.ini"),
    ("aws-appsync-api-key", "apiKey: 'da2-{n10}'", "a.js"),
    ("azure-identifiable-key", "{N52}JQQJ88{N28}", "a.txt"),
    ("azure-storage-account-key", "AccountName=acct;AccountKey={B40}==", "a.txt"),
    ("azure-ad-client-secret", "AZURE_CLIENT_SECRET=${AZURE_CLIENT_SECRET}", ".env"),
    ("azure-client-secret-pair", "AZURE_TENANT_ID={G}\nAZURE_CLIENT_ID={G}\nSUB={H32}", ".env"),
    ("azure-sas-token", "https://a.blob.core.windows.net/c?sv=2021-06-08&sig=<signature>", "a"),
    ("azure-devops-pat", "AZURE_DEVOPS_PAT={z20}", ".env"),
    ("azure-cosmos-key", "COSMOS_MASTER_KEY=os.environ['COSMOS_KEY']", ".env"),
    ("azure-function-key", "x-functions-key: {N20}", "a.http"),
    ("gcp-api-key", "AIza{W20}", "a.txt"),
    ("gcp-service-account-key", '"private_key_id": "",', "sa.json"),
    ("google-oauth-client-secret", "GOCSPX-{W10}", "a.txt"),
    ("google-oauth-access-token", "ya29.{W10}", "a.txt"),
    ("google-oauth-refresh-token", "1//0{W10}", "a.txt"),
    ("firebase-cloud-messaging-key", "AAAA{W7}:APA91b{W20}", "a.txt"),
    ("alibaba-access-key-id", "LTAI{N5}", "a.txt"),
    ("alibaba-access-key-secret", 'aliyun_region = "cn-hangzhou"', "a.py"),
    ("tencent-secret-id", "AKID{N10}", "a.txt"),
    ("ibm-cloud-api-key", "IBM_CLOUD_REGION=us-south", ".env"),
    ("digitalocean-token", "dop_v1_{H20}", "a.txt"),
    ("heroku-api-key", "HRKU-{W10}", "a.txt"),
    ("heroku-api-key-legacy", 'heroku_app_name = "{G}"', "a.py"),
    ("linode-token", "LINODE_TOKEN={H40}", ".env"),
    ("vultr-api-key", "VULTR_REGION=ewr", ".env"),
    ("scaleway-access-key", "SCW_DEFAULT_REGION=fr-par", ".env"),
    ("cloudflare-api-token", "CLOUDFLARE_ZONE=corp.internal", ".env"),
    ("cloudflare-origin-ca-key", "v1.0-{H10}-{H10}", "a.txt"),
    ("fastly-api-token", "FASTLY_SERVICE=www", ".env"),
    ("netlify-token", "nfp_{N10}", "a.txt"),
    ("vercel-token", "VERCEL_ENV=production", ".env"),
    ("supabase-token", "sbp_{H10}", "a.txt"),
    ("flyio-token", "FlyV1 fm2_{B10}", "a.txt"),
    ("doppler-token", "dp.pt.{N10}", "a.txt"),
    ("vault-token", "hvs.{N8}", "a.txt"),
    ("vault-token-legacy", "VAULT_ADDR=https://vault.internal:8200", ".env"),
    ("terraform-cloud-token", "{N14}.atlasv1.{N10}", "a.txt"),
    ("pulumi-token", "pul-{H10}", "a.txt"),
    ("databricks-token", "dapi{H10}", "a.txt"),
    ("planetscale-token", "pscale_tkn_{N10}", "a.txt"),
    ("okta-api-token", "OKTA_ORG_URL=https://corp.okta.com", ".env"),
    ("salesforce-session-id", "00D{N15}", "a.txt"),
    ("render-api-key", "rnd_{N10}", "a.txt"),
    ("age-secret-key", "AGE-SECRET-KEY-1{U10}", "a.txt"),
    ("kubernetes-token", "kubernetes_namespace: default", "a.yaml"),
    ("github-pat", "ghp_{N10}", "a.txt"),
    ("github-pat", "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}", "ci.yml"),
    ("github-oauth-token", "gho_{N20}", "a.txt"),
    ("github-app-token", "ghs_{N20}", "a.txt"),
    ("github-refresh-token", "ghr_{N20}", "a.txt"),
    ("github-fine-grained-pat", "github_pat_{N10}", "a.txt"),
    ("gitlab-pat", "glpat-xxxxxxxxxxxxxxxxxxxx", "a.txt"),
    ("gitlab-pipeline-trigger-token", "glptt-{H10}", "a.txt"),
    ("gitlab-runner-token", "glrt-{N8}", "a.txt"),
    ("gitlab-deploy-token", "gldt-{N8}", "a.txt"),
    ("gitlab-other-token", "glft-{N8}", "a.txt"),
    ("atlassian-api-token", "ATATT3{N20}", "a.txt"),
    ("atlassian-api-token-legacy", "JIRA_URL=https://corp.atlassian.net", ".env"),
    ("bitbucket-app-password", "ATBB{N10}", "a.txt"),
    ("sourcegraph-token", "sgp_{H10}", "a.txt"),
    ("gitea-token", "GITEA_URL=https://gitea.internal", ".env"),
    ("slack-bot-token", "xoxb-{D12}-{D13}-xxxxxxxxxxxxxxxxxxxxxxxx", "a.txt"),
    ("slack-user-token", "xoxp-{D5}", "a.txt"),
    ("slack-app-token", "xapp-1-{U5}", "a.txt"),
    ("slack-config-token", "xoxe.xoxp-1-{N20}", "a.txt"),
    ("slack-legacy-token", "xoxa-{N5}", "a.txt"),
    ("slack-webhook-url", "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXX"
     "XXXXXXXX", "a.txt"),
    ("discord-bot-token", "DISCORD_CHANNEL=general", ".env"),
    ("discord-webhook-url", "https://discord.com/api/webhooks/{D18}/", "a.txt"),
    ("telegram-bot-token", "{D10}:BB{N33}", "a.txt"),
    ("teams-webhook-url", "https://contoso.webhook.office.com/webhookb2/short", "a.txt"),
    ("twilio-auth-token", "TWILIO_ACCOUNT_NAME=main", ".env"),
    ("twilio-api-key", "SK{H10}", "a.txt"),
    ("twitch-stream-key", "live_{D9}_{N10}", "a.txt"),
    ("mattermost-token", "MATTERMOST_URL=https://chat.internal", ".env"),
    ("zoom-secret", "ZOOM_MEETING=weekly", ".env"),
    ("intercom-token", "INTERCOM_APP_ID=abc123", ".env"),
    ("line-channel-token", "LINE_CHANNEL_ID=12345", ".env"),
    ("paystack-secret-key", "sk_live_{H10}", "a.txt"),
    ("stripe-secret-key", "sk_live_{N10}", "a.txt"),
    ("stripe-secret-key", "pk_live_{N32}", "a.txt"),
    ("stripe-webhook-secret", "whsec_{N10}", "a.txt"),
    ("square-access-token", "SQUARE_LOCATION=main", ".env"),
    ("square-oauth-secret", "sq0csp-{N10}", "a.txt"),
    ("braintree-access-token", "access_token$production${n5}", "a.txt"),
    ("shopify-token", "shpat_{H10}", "a.txt"),
    ("flutterwave-secret-key", "FLWSECK-{H10}-X", "a.txt"),
    ("plaid-access-token", "access-sandbox-{H8}", "a.txt"),
    ("gocardless-token", "GOCARDLESS_ENV=live", ".env"),
    ("adyen-api-key", "ADYEN_MERCHANT=corp", ".env"),
    ("coinbase-key", '"name": "organizations/"', "a.json"),
    ("razorpay-secret", "rzp_live_{N5}", "a.txt"),
    ("mollie-api-key", "MOLLIE_PROFILE=pfl_{N10}", ".env"),
    ("sendgrid-api-key", "SG.{N5}.{N5}", "a.txt"),
    ("mailgun-api-key", "key-{H10}", "a.txt"),
    ("mailchimp-api-key", "{H10}-us6", "a.txt"),
    ("postmark-token", "POSTMARK_FROM=bot@corp.internal", ".env"),
    ("mailjet-key", "MAILJET_SENDER=bot", ".env"),
    ("brevo-api-key", "xkeysib-{H10}", "a.txt"),
    ("mandrill-api-key", "MANDRILL_TEMPLATE=welcome", ".env"),
    ("sparkpost-api-key", "SPARKPOST_REGION=eu", ".env"),
    ("resend-api-key", "re_{N8}", "a.txt"),
    ("mailersend-token", "mlsn.{H10}", "a.txt"),
    ("npm-token", "npm_{N10}", "a.txt"),
    ("pypi-token", "pypi-AgEIcHlwaS5vcmc{W10}", "a.txt"),
    ("rubygems-api-key", "rubygems_{H10}", "a.txt"),
    ("nuget-api-key", "oy2{n10}", "a.txt"),
    ("crates-io-token", "cio{N10}", "a.txt"),
    ("dockerhub-token", "dckr_pat_{N5}", "a.txt"),
    ("artifactory-api-key", "AKCp{N10}", "a.txt"),
    ("artifactory-reference-token", "cmVmdGtu{N10}", "a.txt"),
    ("clojars-token", "CLOJARS_{n10}", "a.txt"),
    ("octopus-deploy-api-key", "API-{U10}", "a.txt"),
    ("github-npm-registry-token", "//npm.pkg.github.com/:_authToken=${NPM_TOKEN}", ".npmrc"),
    ("hex-pm-key", "HEX_ORG=corp", ".env"),
    ("gradle-publish-key", "gradle.publish.key={N10}", "gradle.properties"),
    ("openai-api-key", "sk-{N10}T3BlbkFJ{N5}", "a.txt"),
    ("openai-project-key", "sk-proj-{N20}", "a.txt"),
    ("anthropic-api-key", "sk-ant-api03-{N20}AA", "a.txt"),
    ("huggingface-token", "hf_{N10}", "a.txt"),
    ("groq-api-key", "gsk_{N10}", "a.txt"),
    ("replicate-api-token", "r8_{N10}", "a.txt"),
    ("cohere-api-key", "COHERE_MODEL=command", ".env"),
    ("mistral-api-key", "MISTRAL_MODEL=large", ".env"),
    ("perplexity-api-key", "pplx-{N10}", "a.txt"),
    ("xai-api-key", "xai-{N10}", "a.txt"),
    ("deepseek-api-key", "DEEPSEEK_MODEL=chat", ".env"),
    ("openrouter-api-key", "sk-or-v1-{H10}", "a.txt"),
    ("langsmith-api-key", "lsv2_pt_{H10}", "a.txt"),
    ("tavily-api-key", 'TAVILY_API_KEY = "tvly-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"', "a.py"),
    ("firecrawl-api-key", "fc-{H10}", "a.txt"),
    ("jina-api-key", "jina_{H10}", "a.txt"),
    ("pinecone-api-key", "pcsk_{N10}", "a.txt"),
    ("together-api-key", "TOGETHER_MODEL=llama", ".env"),
    ("elevenlabs-api-key", "ELEVENLABS_VOICE=rachel", ".env"),
    ("assemblyai-api-key", "ASSEMBLYAI_LANG=en", ".env"),
    ("fireworks-api-key", "fw_{N10}", "a.txt"),
    ("wandb-api-key", "WANDB_PROJECT=shop", ".env"),
    ("kagi-api-key", "KAGI_REGION=us", ".env"),
    ("adafruit-io-key", "aio_{N10}", "a.txt"),
    ("dependency-track-api-key", "odt_{N10}", "a.txt"),
    ("mapbox-token", "pk.eyJ{N5}", "a.txt"),
    ("facebook-app-secret", "FACEBOOK_APP_ID=1234567890", ".env"),
    ("newrelic-license-key-legacy", "# New Relic\napp_name: shop", "newrelic.yml"),
    ("datadog-api-key", "DD_SITE=datadoghq.eu", ".env"),
    ("datadog-app-key", "DD_ENV=prod", ".env"),
    ("newrelic-user-api-key", "NRAK-{U10}", "a.txt"),
    ("newrelic-other-key", "NRJS-{H5}", "a.txt"),
    ("newrelic-license-key", "{H10}NRAL", "a.txt"),
    ("sentry-token", "sntryu_{H10}", "a.txt"),
    ("grafana-cloud-token", "glc_{N10}", "a.txt"),
    ("grafana-service-account-token", "glsa_{N10}", "a.txt"),
    ("grafana-api-key", "eyJrIjoi{N10}", "a.txt"),
    ("honeycomb-api-key", "HONEYCOMB_DATASET=prod", ".env"),
    ("dynatrace-token", "dt0c01.{U10}", "a.txt"),
    ("splunk-hec-token", "SPLUNK_INDEX=main", ".env"),
    ("pagerduty-token", "PAGERDUTY_SERVICE=api", ".env"),
    ("opsgenie-api-key", "OPSGENIE_TEAM=sre", ".env"),
    ("bugsnag-api-key", "BUGSNAG_RELEASE_STAGE=prod", ".env"),
    ("rollbar-token", "ROLLBAR_ENV=prod", ".env"),
    ("postman-api-key", "PMAK-{H10}", "a.txt"),
    ("sonarqube-token", "sqp_{H10}", "a.txt"),
    ("sonarqube-token-legacy", "sonar.projectKey=shop", "sonar-project.properties"),
    ("codeclimate-token", "CC_TEST_REPORTER_VERSION=latest", ".env"),
    ("logzio-token", "LOGZIO_REGION=eu", ".env"),
    ("circleci-token", "CIRCLE_BRANCH=main", ".env"),
    ("buildkite-token", "bkua_{H10}", "a.txt"),
    ("travis-token", "TRAVIS_BRANCH=main", ".env"),
    ("mongodb-atlas-key", "MONGODB_DB=shop", ".env"),
    ("faunadb-secret", "FAUNA_DOMAIN=db.fauna.com", ".env"),
    ("neon-api-key", "napi_{n10}", "a.txt"),
    ("upstash-token", "UPSTASH_REDIS_REST_URL=https://eu1.upstash.io", ".env"),
    ("redislabs-api-key", "REDISLABS_REGION=eu", ".env"),
    ("influxdb-token", "INFLUXDB_ORG=corp", ".env"),
    ("elastic-cloud-api-key", "ELASTIC_INDEX=logs", ".env"),
    ("private-key", "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----", "a"),
    ("private-key", "-----BEGIN PUBLIC KEY-----\n{B64}\n{B64}\n-----END PUBLIC KEY-----", "a"),
    ("jwt", "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.", "a.txt"),
    ("database-url-credentials", "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app", ".env"),
    ("database-url-credentials", "postgres://db.internal:5432/app", ".env"),
    ("url-credentials", "https://user:password@example.com/", "a.md"),
    ("url-credentials", "https://git.internal/repo.git", "a.md"),
    ("connection-string-password", "Server=db;User Id=sa;Pwd=${DB_PWD};", "a.config"),
    ("generic-password-assignment", 'password = os.environ["DB_PASSWORD"]', "a.py"),
    ("generic-password-assignment", "password = get_password()", "a.py"),
    ("generic-password-assignment", "password = self.password", "a.py"),
    ("generic-password-assignment", 'password_file = "/run/secrets/db"', "a.py"),
    ("generic-password-assignment", 'password = "changeme"', "a.py"),
    ("generic-password-assignment", 'token_type = "bearer"', "a.py"),
    ("generic-password-assignment", 'password = "${DB_PASSWORD}"', "a.py"),
    ("generic-password-assignment", "password = '<your-password>'", "a.py"),
    ("generic-password-assignment", 'password = "%(password)s"', "a.py"),
    ("generic-password-assignment", "if password == stored_password:", "a.py"),
    ("generic-password-assignment", "DB_PASSWORD=", ".env"),
    ("dockerfile-env-secret", "ENV DB_PASSWORD_FILE /run/secrets/db", "Dockerfile"),
    ("dockerfile-env-secret", "ENV DB_PASSWORD $DB_PASSWORD", "Dockerfile"),
    ("cli-secret-flag", "docker login --password-stdin", "a.sh"),
    ("cli-secret-flag", "mytool --password $PASSWORD", "a.sh"),
    ("xml-secret-element", "<password>${db.password}</password>", "a.xml"),
    ("xml-add-key-secret", '<add key="SmtpPassword" value="{{{{ secrets.smtp }}}}"/>', "a.config"),
    ("network-credential", 'new NetworkCredential("user", password)', "a.cs"),
    ("prose-password", "The password is required.", "a.md"),
    ("wireguard-key", "PublicKey = {B42}A=", "wg0.conf"),
    ("vault-unseal-key", "Unseal Key 1: <redacted>", "a.txt"),
    ("kerberos-asrep-hash", "$krb5asrep$23$user", "a.txt"),
    ("netrc-password", "machine api.internal login bot password $NETRC_PASSWORD", ".netrc"),
    ("http-basic-auth", "Do basic configuration for the logging system.", "a.py"),
    ("http-bearer-token", "Authorization: Bearer ${TOKEN}", "a.http"),
    ("password-hash", "$2b$12$short", "a.txt"),
    ("django-secret-key", 'SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]', "settings.py"),
    ("high-entropy-string", 'sha = "{H40}"', "a.py"),
    ("high-entropy-string", 'run_id = "{G}"', "a.py"),
    ("high-entropy-string", 'name = "ThisIsAnOrdinaryCamelCaseIdentifierName"', "a.py"),
    ("high-entropy-string", 'img = "data:image/png;base64,{B60}"', "a.py"),
    ("high-entropy-string", '"integrity": "sha512-{B86}=="', "package-lock.json"),
    ("high-entropy-string", 'golang.org/x/text v0.3.0 h1:{B43}=', "go.sum"),
    ("mysql-cli-password", "mysql -u root -p", "a.sh"),
    ("mysql-cli-password", "mysql -u root -p shop", "a.sh"),
    ("mysql-cli-password", 'mysql -u root -p"$MYSQL_PASSWORD" shop', "a.sh"),
    ("mysql-cli-password", "mysql -u root -p${{PW}} -P3306", "a.sh"),
    ("mysql-cli-password", "mysql -p${{{{ secrets.DB_PASSWORD }}}} -h db", "ci.yml"),
    ("mysql-cli-password", "mysql -h db -u app -p<password>", "README.md"),
    ("mysql-cli-password", "pip install mysqlclient -p{N10}{D2}", "a.sh"),
    ("sshpass-password", "sshpass -e ssh deploy@web  # SSHPASS from the environment", "a.sh"),
    ("sshpass-password", 'sshpass -p "$DEPLOY_PW" ssh deploy@web', "a.sh"),
    ("registry-login-password", 'echo "$PW" | docker login --password-stdin -u ci ghcr.io', "a.sh"),
    ("registry-login-password", "docker login -u ci -p $CI_REGISTRY_PASSWORD $CI_REGISTRY",
     "a.yml"),
    ("registry-login-password", "docker run -p 8080:80 nginx  # after docker login", "a.sh"),
    ("curl-user-password", 'curl -u "$USER:$TOKEN" https://x.internal', "a.sh"),
    ("curl-user-password", "curl -u admin https://x.internal", "a.sh"),
    ("curl-user-password", "curl -u bot:${{BOT_TOKEN}} https://x.internal", "a.sh"),
    ("htpasswd-password", "htpasswd -c /etc/nginx/.htpasswd admin", "a.sh"),
    ("htpasswd-password", 'htpasswd -nb admin "$ADMIN_PW"', "a.sh"),
    ("redis-cli-password", "redis-cli --askpass -h cache", "a.sh"),
    ("redis-cli-password", "redis-cli -a $REDIS_PASSWORD ping", "a.sh"),
]


def _filled(text: str, i: int) -> str:
    return fill(text, random.Random(i))


def _rules(text: str, path: str, reportable_only: bool = False) -> set[str]:
    return {h.rule for h in scan_text(text, path) if h.reportable or not reportable_only}


def _shortened(template: str) -> str:
    """A provider's format cut to a third: the prefix in prose, a truncated paste."""
    def cut(m: re.Match[str]) -> str:
        code, n = m.group(1), m.group(2)
        return "{H8}" if code == "G" else f"{{{code}{max(int(n) // 3, 1)}}}"
    return re.sub(r"\{([A-Za-z])(\d*)\}", cut, template)


# The long tail's false examples: each planted line with its value cut short.
SHORTENED = [(rule, _shortened(t), "config.env") for rule, t in LONG_TAIL.items()]


@pytest.mark.parametrize(("rule", "text", "path"), SHORTENED)
def test_shortened_value_is_not_flagged(rule: str, text: str, path: str) -> None:
    filled = fill(text, random.Random(3))
    assert rule not in _rules(filled, path), filled


@pytest.mark.parametrize(("rule", "template"), sorted(REDACT_ONLY.items()))
def test_redact_only_rules_redact_and_never_report(rule: str, template: str) -> None:
    text = fill(template, random.Random(4))
    hits = [h for h in scan_text(text, "config.env") if h.rule == rule]
    assert hits and not any(h.reportable for h in hits), text


def test_every_rule_has_true_and_false_examples() -> None:
    trues = {r for r, _ in planted_examples()} | {r for r, _, _ in TRUE} | set(REDACT_ONLY)
    falses = {r for r, _, _ in FALSE + SHORTENED} | set(REDACT_ONLY)
    ids = {r.id for r in RULES}
    assert ids - trues == set()
    assert ids - falses == set()
    assert trues <= ids and falses <= ids
    assert len(ids) == len(RULES) > 150


def test_rule_patterns_compile_and_keywords_are_lowercase() -> None:
    for rule in RULES:
        compiled(rule.pattern)
        assert all(k == k.lower() and k for k in rule.keywords), rule.id
        assert rule.severity == "error"
        assert rule.kind in ("token", "assign", "url", "block", "entropy")


@pytest.mark.parametrize(("rule", "text"), planted_examples(), ids=lambda v: v[:40])
def test_planted_example_is_reported(rule: str, text: str) -> None:
    assert rule in _rules(text, "config.env", reportable_only=True)


@pytest.mark.parametrize(("rule", "text", "path"), TRUE)
def test_true_example_is_reported(rule: str, text: str, path: str) -> None:
    filled = _filled(text, len(text))
    assert rule in _rules(filled, path, reportable_only=True), filled


@pytest.mark.parametrize(("rule", "text", "path"), FALSE)
def test_false_example_is_not_flagged(rule: str, text: str, path: str) -> None:
    filled = _filled(text, len(text))
    assert rule not in _rules(filled, path), filled


def test_a_rule_captures_exactly_its_secret() -> None:
    """A second capturing group would make `group` point at the wrong text."""
    for rule in RULES:
        groups = compiled(rule.pattern).groups
        assert groups >= rule.group and (rule.group == 0 or groups == 1), rule.id
