"""The verifier against signatures made by the service's own signer, and its refusals."""

import json

import pytest

from court_records import WebhookVerificationError, sign_webhook, verify_webhook


def headers_of(vector, signature=None):
    return {"Webhook-Id": vector["id"], "Webhook-Timestamp": str(vector["timestamp"]), "Webhook-Signature": signature or vector["signature"]}


def test_accepts_what_the_service_signed_as_text_and_as_bytes(server_vectors):
    for vector in server_vectors["webhooks"]:
        for payload in (vector["body"], vector["body"].encode("utf-8")):
            event = verify_webhook(payload=payload, headers=headers_of(vector), secret=vector["secret"], now=vector["timestamp"])
            assert event == json.loads(vector["body"])


def test_signs_as_the_service_signs(server_vectors):
    for vector in server_vectors["webhooks"]:
        assert sign_webhook(id=vector["id"], timestamp=vector["timestamp"], payload=vector["body"], secret=vector["secret"]) == vector["signature"]


def test_any_one_of_several_signatures_is_enough_while_a_secret_rotates(server_vectors):
    vector = server_vectors["webhooks"][0]
    other = server_vectors["webhooks"][1]
    rotated = f"v1,{other['signature'][3:]} {vector['signature']}"
    assert verify_webhook(payload=vector["body"], headers=headers_of(vector, rotated), secret=vector["secret"], now=vector["timestamp"])


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda v, h: (v["body"].replace("sc-inabs", "sc-inabz"), h, v["secret"]), "NO_MATCHING_SIGNATURE"),
        (lambda v, h: (v["body"], {**h, "Webhook-Id": v["id"] + "x"}, v["secret"]), "NO_MATCHING_SIGNATURE"),
        (lambda v, h: (v["body"], h, "whsec_" + "A" * 44), "NO_MATCHING_SIGNATURE"),
        (lambda v, h: (v["body"], {**h, "Webhook-Signature": "v2," + h["Webhook-Signature"][3:]}, v["secret"]), "NO_MATCHING_SIGNATURE"),
        (lambda v, h: (v["body"], h, "not-a-secret"), "INVALID_SECRET"),
        (lambda v, h: (v["body"], {k: x for k, x in h.items() if k != "Webhook-Id"}, v["secret"]), "MISSING_HEADERS"),
        (lambda v, h: (v["body"], {**h, "Webhook-Timestamp": "12.5"}, v["secret"]), "INVALID_TIMESTAMP"),
    ],
)
def test_refuses_what_was_not_signed_so(server_vectors, change, reason):
    vector = server_vectors["webhooks"][0]
    payload, headers, secret = change(vector, headers_of(vector))
    with pytest.raises(WebhookVerificationError) as caught:
        verify_webhook(payload=payload, headers=headers, secret=secret, now=vector["timestamp"])
    assert caught.value.reason == reason


def test_refuses_a_replay_outside_the_tolerance_either_way(server_vectors):
    vector = server_vectors["webhooks"][0]
    for skew in (301, -301):
        with pytest.raises(WebhookVerificationError) as caught:
            verify_webhook(payload=vector["body"], headers=headers_of(vector), secret=vector["secret"], now=vector["timestamp"] + skew)
        assert caught.value.reason == "TIMESTAMP_OUT_OF_TOLERANCE"
    assert verify_webhook(payload=vector["body"], headers=headers_of(vector), secret=vector["secret"], now=vector["timestamp"] + 300)
