"""The Host check of the explorer (``explorer/origin.py``) for the bindings its hostile tests
cannot make, since they listen on the loopback alone: a server bound to an address of the
network, to every address, or by a name, answers its own address or name and the loopback,
never another name (tests/hostile/test_serve.py has the real server on 127.0.0.1 and ::1)."""

from __future__ import annotations

from loo_replay.explorer.origin import Origin, is_loopback


def test_bound_to_an_address_of_the_network_it_answers_that_address_and_the_loopback() -> None:
    origin = Origin("192.0.2.7", "192.0.2.7")
    for host in ("192.0.2.7", "192.0.2.7:8000", "127.0.0.1:8000", "[::1]", "localhost"):
        assert origin.answers(host), host
    for host in ("192.0.2.8", "evil.example", "evil.example:8000", "[2001:db8::7]", ""):
        assert not origin.answers(host), host


def test_bound_to_every_address_it_answers_any_address_but_no_other_name() -> None:
    for given in ("0.0.0.0", "::"):
        origin = Origin(given, given)
        for host in ("192.0.2.7:8000", "[2001:db8::7]:8000", "10.1.2.3", "localhost"):
            assert origin.answers(host), (given, host)
        for host in ("evil.example", "club-pc.evil.example:8000", "[10.1.2.3]"):
            assert not origin.answers(host), (given, host)


def test_listening_by_a_name_it_answers_that_name() -> None:
    origin = Origin("Club-PC", "192.0.2.7")
    assert origin.answers("club-pc:8000") and origin.answers("CLUB-PC")
    assert not origin.answers("club-pc.evil.example")


def test_what_is_the_loopback() -> None:
    for host in ("127.0.0.1", "127.0.0.2", "::1", "[::1]", "::ffff:127.0.0.1", "localhost"):
        assert is_loopback(host), host
    for host in ("0.0.0.0", "::", "192.0.2.7", "2001:db8::1", "club-pc", "localhost.evil.example"):
        assert not is_loopback(host), host
