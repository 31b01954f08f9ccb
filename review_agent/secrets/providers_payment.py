"""Payment providers' key formats."""

from __future__ import annotations

from review_agent.secrets.rule import Rule, ctx, pre

PAYMENT: tuple[Rule, ...] = (
    # Before Stripe: the same prefix, but Paystack's body is 40 lowercase hex.
    pre("paystack-secret-key", "Paystack secret key", ("sk_live_", "sk_test_"),
        r"sk_(?:live|test)_[a-f0-9]{40}"),
    pre("stripe-secret-key", "Stripe secret key", ("sk_live_", "sk_test_", "rk_live_",
                                                  "rk_test_"),
        r"[sr]k_(?:live|test)_[A-Za-z0-9]{24,99}"),
    pre("stripe-webhook-secret", "Stripe webhook signing secret", ("whsec_",),
        r"whsec_[A-Za-z0-9]{32,}"),
    pre("square-access-token", "Square access token", ("eaaa", "sq0atp-"),
        r"(?:EAAA[A-Za-z0-9_\-]{60}|sq0atp-[A-Za-z0-9_\-]{22})", 3.5),
    pre("square-oauth-secret", "Square OAuth secret", ("sq0csp-",), r"sq0csp-[A-Za-z0-9_\-]{43}"),
    pre("braintree-access-token", "Braintree/PayPal access token", ("access_token$",),
        r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}"),
    pre("shopify-token", "Shopify access token", ("shp",),
        r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    pre("flutterwave-secret-key", "Flutterwave secret key", ("flwseck",),
        r"FLWSECK(?:_TEST)?-[a-f0-9]{32}-X"),
    pre("plaid-access-token", "Plaid access token", ("access-sandbox-", "access-development-",
                                                    "access-production-"),
        r"access-(?:sandbox|development|production)-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-"
        r"[a-f0-9]{4}-[a-f0-9]{12}"),
    ctx("gocardless-token", "GoCardless access token", ("gocardless",),
        r"(?:live|sandbox)_[A-Za-z0-9_=\-]{40}", 4.0),
    ctx("adyen-api-key", "Adyen API key", ("adyen",), r"AQE[A-Za-z0-9+/=_\-]{80,}", 4.0),
    pre("coinbase-key", "Coinbase API secret", ("organizations/",),
        r"organizations/[0-9a-f\-]{36}/apiKeys/[0-9a-f\-]{36}"),
    pre("razorpay-secret", "Razorpay key", ("rzp_live_", "rzp_test_"),
        r"rzp_(?:live|test)_[A-Za-z0-9]{14}", 3.0),
    ctx("mollie-api-key", "Mollie API key", ("mollie",), r"(?:live|test)_[A-Za-z0-9]{30}", 4.0),
)
