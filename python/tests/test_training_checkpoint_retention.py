"""Retention of training checkpoints: the rule (keep-last-N, keep-every-K, pins, always the newest)
and prune, which deletes only what the rule drops and nothing a kept step's manifest names."""

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shardflow import DirectoryStore
from shardflow.checkpoints import Checkpoints, RetentionPolicy
from shardflow.checkpoints import layout


def test_should_keep_the_last_n_the_first_of_each_window_the_pins_and_the_newest():
    steps = [0, 300, 600, 900, 1200, 1500, 1800, 2100]
    assert RetentionPolicy(keep_last=2).kept(steps) == {1800, 2100}
    assert RetentionPolicy(keep_last=1, keep_every=1000).kept(steps) == {0, 1200, 2100}
    assert RetentionPolicy(keep_last=1).kept(steps, pinned={600, 7}) == {600, 2100}
    assert RetentionPolicy(keep_last=5).kept([]) == set()
    with pytest.raises(ValueError, match="keep_last must be"):
        RetentionPolicy(keep_last=0)
    with pytest.raises(ValueError, match="keep_every must be"):
        RetentionPolicy(keep_every=0)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=st.lists(st.tuples(st.integers(0, 60), st.sampled_from(["save", "partial", "pin"])), max_size=25),
       keep_last=st.integers(1, 4), keep_every=st.one_of(st.none(), st.integers(1, 25)))
def test_should_delete_exactly_the_dropped_steps_and_nothing_a_kept_step_needs(tmp_path_factory, history, keep_last,
                                                                                keep_every):
    store = DirectoryStore(tmp_path_factory.mktemp("bucket"))
    ckpt = Checkpoints(store)
    saved, pinned = set(), set()
    for step, action in history:
        if action == "save" and step not in saved:
            ckpt.save("run", step, {"model": f"model {step}".encode(), "rng": os.urandom(8)})
            saved.add(step)
        elif action == "partial":  # a killed save: files, no manifest
            store.put_if_absent(layout.file_key("run", step, "00000000000000aa", 0, "model"), b"partial")
        elif action == "pin" and step in saved:
            ckpt.pin("run", step)
            pinned.add(step)
    before = set(store.list_keys("runs/"))
    manifests = {m.step: m for m in ckpt.list("run")}

    result = ckpt.prune("run", keep_last=keep_last, keep_every=keep_every)

    expected = RetentionPolicy(keep_last, keep_every).kept(saved, pinned)
    if saved:
        assert max(saved) in expected
    assert set(result.kept) == expected and set(result.dropped) == saved - expected
    after = set(store.list_keys("runs/"))
    assert after <= before
    for step in expected:
        needed = {f.key for f in manifests[step].files} | {layout.manifest_key("run", step)}
        assert needed <= after, f"step {step} is kept: nothing it names may go"
        assert ckpt.load("run", step).verify() == []
    for step in saved - expected:
        assert not any(k.startswith(layout.step_prefix("run", step)) for k in after), f"step {step} is dropped whole"
        assert layout.pointer_key("run", step) not in after
    assert before - after == set(result.deleted_keys)
    assert [m.step for m in ckpt.list("run")] == sorted(expected)
    if saved:
        assert ckpt.resume("run").step == max(saved)
