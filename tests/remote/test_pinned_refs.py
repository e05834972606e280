"""An exact ``?ref=TAG``'s lock held to the tag's commit where the package is fetched
(issue #80 §4: ``providers.pinned.PinnedCandidates.fetch``), in memory: the remote's tags and
the fetch are stand-ins that record what was asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from tofu_solve.addrs.module_source import parse_source
from tofu_solve.errors import IntegrityError
from tofu_solve.providers.base import AvailableVersion
from tofu_solve.providers.pinned import PinnedCandidates
from tofu_solve.remote.fetch import FetchedPackage

TAGGED, HEAD = "a" * 40, "b" * 40
SOURCE = parse_source("git::https://git.example.com/net.git?ref=v1.0.0")


class Remotes:
    def __init__(self):
        self.asked = 0

    def refs(self, url):
        self.asked += 1
        return {"refs/tags/v1.0.0": TAGGED, "refs/heads/main": HEAD}

    def cached_refs(self, url):
        return None


class Fetcher:
    def __init__(self, cached: bool = False):
        self.cached = cached

    def has_git_package(self, address, commit):
        return self.cached

    def fetch(self, address, commit=None):
        return FetchedPackage(Path("/nowhere"), address, address, commit)


def _locked(commit: str) -> AvailableVersion:
    return AvailableVersion("v1.0.0", None, None, f"git::https://git.example.com/net.git?ref={commit}")


def test_a_lock_pointed_at_another_commit_is_a_moved_tag_when_fetched():
    with pytest.raises(IntegrityError) as e:
        PinnedCandidates(Remotes(), Fetcher()).fetch(SOURCE, _locked(HEAD))
    assert e.value.summary == "Moved git tag" and TAGGED in e.value.detail and HEAD in e.value.detail
    assert PinnedCandidates(Remotes(), Fetcher()).fetch(SOURCE, _locked(TAGGED)).commit == TAGGED


def test_a_package_this_machine_holds_and_a_branch_are_not_listed_again():
    remotes = Remotes()
    PinnedCandidates(remotes, Fetcher(cached=True)).fetch(SOURCE, _locked(HEAD))  # checked when it came
    branch = parse_source("git::https://git.example.com/net.git?ref=main")
    PinnedCandidates(remotes, Fetcher()).fetch(branch, _locked("c" * 40))  # a branch moves by design
    assert remotes.asked == 1
