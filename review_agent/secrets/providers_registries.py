"""Package and artifact registries' token formats."""

from __future__ import annotations

from review_agent.secrets.rule import Rule, ctx, pre

PACKAGES: tuple[Rule, ...] = (
    pre("npm-token", "npm access token", ("npm_",), r"npm_[A-Za-z0-9]{36}"),
    pre("pypi-token", "PyPI upload token", ("pypi-ageichlwas5vcmc", "pypi-agendgvzdc5wexbplm9yzw"),
        r"pypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[A-Za-z0-9_\-]{50,}"),
    pre("rubygems-api-key", "RubyGems API key", ("rubygems_",), r"rubygems_[a-f0-9]{48}"),
    pre("nuget-api-key", "NuGet API key", ("oy2",), r"oy2[a-z0-9]{43}", 3.5),
    pre("crates-io-token", "crates.io API token", ("cio",), r"cio[A-Za-z0-9]{32}", 4.0),
    pre("dockerhub-token", "Docker Hub access token", ("dckr_pat_", "dckr_oat_"),
        r"dckr_(?:pat|oat)_[A-Za-z0-9_\-]{27,}"),
    pre("artifactory-api-key", "JFrog Artifactory API key", ("akcp",), r"AKCp[A-Za-z0-9]{69}"),
    pre("artifactory-reference-token", "JFrog Artifactory reference token", ("cmvmdgtu",),
        r"cmVmdGtu[A-Za-z0-9]{56}"),
    pre("clojars-token", "Clojars deploy token", ("clojars_",), r"CLOJARS_[a-z0-9]{60}"),
    pre("octopus-deploy-api-key", "Octopus Deploy API key", ("api-",), r"API-[A-Z0-9]{26}", 3.5),
    pre("github-npm-registry-token", "npm registry auth token", ("_authtoken",),
        r"(?<=_authToken=)[A-Za-z0-9_\-]{20,}"),
    ctx("hex-pm-key", "Hex.pm API key", ("hex_api_key", "hexpm"), r"[a-f0-9]{32}", 3.0),
    Rule("gradle-publish-key", "Gradle plugin portal key", ("gradle.publish",),
         r"gradle\.publish\.(?:key|secret)\s*=\s*([A-Za-z0-9]{32})(?![A-Za-z0-9])"),
)

ARTIFACTS: tuple[Rule, ...] = (
    pre("packagist-token", "Packagist API token", ("packagist_",),
        r"packagist_[ou]u?t_[a-f0-9]{68}"),
    ctx("cloudsmith-key", "Cloudsmith API key", ("cloudsmith",), r"[a-f0-9]{40}"),
    ctx("quay-token", "Quay.io robot token", ("quay",), r"[A-Z0-9]{64}", 4.0),
    ctx("harbor-robot-secret", "Harbor robot account secret", ("harbor", "robot$"),
        r"[A-Za-z0-9]{32}", 4.0),
    ctx("pub-dev-token", "pub.dev token", ("pub_token", "pub-credentials"), r"[A-Za-z0-9_\-.]{40,}",
        4.0),
    ctx("nexus-password", "Sonatype Nexus token",
        ("nexus_password", "nexus_token", "sonatype", "ossrh"),
        r"[A-Za-z0-9+/]{40,44}", 4.0),
    ctx("gem-fury-token", "Gemfury token", ("gemfury", "fury_token"), r"[A-Za-z0-9_\-]{20}", 3.8),
    ctx("expo-token", "Expo access token", ("expo_token",), r"[A-Za-z0-9_\-]{40}", 4.0),
    ctx("vsce-pat", "VS Code Marketplace token", ("vsce",), r"[a-z2-7]{52}", 3.8),
)

REGISTRIES: tuple[Rule, ...] = PACKAGES + ARTIFACTS
