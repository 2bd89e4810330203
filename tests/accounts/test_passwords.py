"""The password hasher the app runs with: argon2id at RFC 9106's second recommended cost
(the test processes swap in a cheap hasher, tests/conftest.py, so this reads the original)."""

from __future__ import annotations

from argon2 import Type

from accounts import passwords
from tests.conftest import PRODUCTION_HASHER


def test_the_app_hashes_with_argon2id_at_64_mib_3_passes_4_lanes() -> None:
    assert PRODUCTION_HASHER.type is Type.ID
    assert (PRODUCTION_HASHER.memory_cost, PRODUCTION_HASHER.time_cost) == (65536, 3)
    assert PRODUCTION_HASHER.parallelism == 4


def test_a_cheap_test_hash_still_verifies_and_is_argon2id() -> None:
    stored = passwords.hash_password("correct horse battery staple")
    assert stored.startswith("$argon2id$")
    assert passwords.verify_password("correct horse battery staple", stored)
    assert not passwords.verify_password("correct horse battery stapler", stored)
    assert not passwords.verify_password("anything", None)
