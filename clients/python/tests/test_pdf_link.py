"""Decryption of links encrypted by the service's own cipher."""

import pytest

from court_records import InvalidPdfLinkError, decrypt_pdf_link


def test_decrypts_what_the_service_encrypted(server_vectors):
    for link in server_vectors["pdfLinks"]:
        assert decrypt_pdf_link(link["encrypted"], link["caseId"], link["caseNumber"]) == link["url"]


def test_refuses_the_wrong_case_and_malformed_values(server_vectors):
    link = server_vectors["pdfLinks"][0]
    iv, cipher = link["encrypted"].split(":")
    for value, case_number in [
        (link["encrypted"], link["caseNumber"] + " "),
        (cipher, link["caseNumber"]),
        (f"{iv[:-2]}:{cipher}", link["caseNumber"]),
        (f"{iv}:{cipher[:-2]}", link["caseNumber"]),
        (f"{iv}:{cipher}:{cipher}", link["caseNumber"]),
    ]:
        with pytest.raises(InvalidPdfLinkError):
            decrypt_pdf_link(value, link["caseId"], case_number)
