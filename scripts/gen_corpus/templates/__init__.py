"""Template families, one module per kind of recurring document.

Each kind has setup_KIND (run once per family, from the family's own Random, so a
family looks the same whichever document asks for it first) and build_KIND (one
document, from the archive's Random). Letters, contracts and manuals are one-offs
and live outside this package."""

from __future__ import annotations

from .bank import build_bank, setup_bank
from .insurance import build_insurance, setup_insurance
from .invoice import build_invoice, setup_invoice
from .payslip import build_payslip, setup_payslip
from .receipt import build_receipt, setup_receipt
from .tax import build_tax, setup_tax
from .telecom import build_telecom, setup_telecom
from .terms import build_terms, setup_terms
from .utility import build_utility, setup_utility


TEMPLATES = {
    "utility": (setup_utility, build_utility), "telecom": (setup_telecom, build_telecom),
    "payslip": (setup_payslip, build_payslip), "bank": (setup_bank, build_bank),
    "insurance": (setup_insurance, build_insurance), "invoice": (setup_invoice, build_invoice),
    "receipt": (setup_receipt, build_receipt), "tax": (setup_tax, build_tax),
    "terms": (setup_terms, build_terms),
}
