"""The API returns PDF links encrypted, so a link never sits in plain text in logs and caches
between the service and the caller: AES-256-CBC with PKCS#7 padding, key = SHA-256(caseId +
caseNumber), written ``<hex IV>:<hex ciphertext>``, UTF-8 plaintext.
"""

from __future__ import annotations

import hashlib
import re

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

_IV = re.compile(r"^[0-9a-fA-F]{32}$")
_BLOCKS = re.compile(r"^(?:[0-9a-fA-F]{32})+$")


class InvalidPdfLinkError(ValueError):
    """The value is not an encrypted link, or it does not decrypt with this case's ids."""


def decrypt_pdf_link(pdf_url: str, case_id: str, case_number: str) -> str:
    """The plain presigned URL of a ``cases.pdf`` answer's ``data``."""
    parts = pdf_url.split(":")
    if len(parts) != 2:
        raise InvalidPdfLinkError("expected exactly two colon-separated parts")
    iv_hex, cipher_hex = parts
    if not _IV.match(iv_hex):
        raise InvalidPdfLinkError("the IV must be 16 bytes of hex")
    if not _BLOCKS.match(cipher_hex):
        raise InvalidPdfLinkError("the ciphertext must be whole 16-byte blocks of hex")
    key = hashlib.sha256(f"{case_id}{case_number}".encode()).digest()
    decryptor = Cipher(algorithms.AES(key), modes.CBC(bytes.fromhex(iv_hex))).decryptor()
    padded = decryptor.update(bytes.fromhex(cipher_hex)) + decryptor.finalize()
    try:
        unpadder = padding.PKCS7(128).unpadder()
        return (unpadder.update(padded) + unpadder.finalize()).decode("utf-8")
    except ValueError as cause:
        raise InvalidPdfLinkError("it does not decrypt with this caseId and caseNumber") from cause
