"""Writes the notebooks from their cells (outputs stripped): `python notebooks/make_notebooks.py`.

The notebooks are the product; this script keeps their source reviewable as Python.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

QUICKSTART = [
    new_markdown_cell(
        "# graphmem quickstart\n\nRemember a few notes, recall by meaning, and draw the "
        "graph around a recall. Needs a running Neo4j (`graphmem server start`); the "
        "notebook works in a scope of its own and removes it at the end."),
    new_code_cell(
        "import os\n\n"
        "from graphmem import GraphMem\n\n"
        "SCOPE = os.environ.get('GRAPHMEM_NOTEBOOK_SCOPE', 'notebook:quickstart')\n"
        "mem = GraphMem()\n"
        "mem.init()\n"
        "report = mem.remember([\n"
        "    {'id': 'cache', 'text': 'The cache layer is Redis; keys use the user: prefix',\n"
        "     'session': 'kickoff'},\n"
        "    {'id': 'ttl', 'text': 'Redis keys for sessions expire after 30 minutes',\n"
        "     'session': 'kickoff'},\n"
        "    {'id': 'deploy', 'text': 'We deploy with Kubernetes on GKE through Argo CD'},\n"
        "    {'id': 'oncall', 'text': 'Priya is on call for the cache cluster this week',\n"
        "     'links': [{'id': 'cache', 'weight': 0.8}]},\n"
        "], scope=SCOPE)\n"
        "report.counts"),
    new_code_cell(
        "result = mem.recall('which key-value store do we use?', scope=SCOPE, top_k=4)\n"
        "for h in result.hits:\n"
        "    print(f'{h.score:.3f} {h.via:11} {h.id:7} {h.text}')\n"
        "assert result.hits[0].id == 'cache'"),
    new_markdown_cell("The graph around that recall: the hits, and what links them."),
    new_code_cell(
        "import math\n\n"
        "import matplotlib.pyplot as plt\n\n"
        "ids = [h.id for h in result.hits]\n"
        "edges = mem.links(ids, scope=SCOPE)  # memory -> memory, entity or session\n"
        "nodes = sorted({e.source for e in edges} | {e.target for e in edges} | set(ids))\n"
        "turn = 2 * math.pi / len(nodes)\n"
        "pos = {n: (math.cos(turn * i), math.sin(turn * i)) for i, n in enumerate(nodes)}\n"
        "fig, ax = plt.subplots(figsize=(7, 7))\n"
        "for e in edges:\n"
        "    (x1, y1), (x2, y2) = pos[e.source], pos[e.target]\n"
        "    ax.plot([x1, x2], [y1, y2], color='#bbb', zorder=1)\n"
        "for n, (x, y) in pos.items():\n"
        "    ax.scatter([x], [y], s=900 if n in ids else 300,\n"
        "               color='#68BDF6' if n in ids else '#C990C0', zorder=2)\n"
        "    ax.annotate(n[:24], (x, y), ha='center', va='center', fontsize=8)\n"
        "ax.set_axis_off()\n"
        "ax.set_title('the graph around a recall')\n"
        "assert len(edges) > 0"),
    new_code_cell(
        "mem.flush()  # recall's reinforcement is written in the background\n"
        "mem.drop_scope(SCOPE)\n"
        "mem.close()"),
]

DECAY = [
    new_markdown_cell(
        "# Decay by kind\n\nRetention `R = floor + (1 − floor)·exp(−ln2·(Δt/H_eff)^shape)` "
        "(docs/architecture.md, \"The lifecycle\"): the curves per kind, what reinforcement "
        "does, and the "
        "floors that keep core and procedural memories from fading. Pure Python: no "
        "server needed."),
    new_code_cell(
        "from datetime import UTC, datetime, timedelta\n\n"
        "import matplotlib.pyplot as plt\n\n"
        "from graphmem.base.decay import PRESETS, retention\n\n"
        "t0 = datetime(2024, 1, 1, tzinfo=UTC)\n"
        "days = list(range(0, 731, 5))\n"
        "fig, axes = plt.subplots(1, 2, figsize=(12, 4), sharey=True)\n"
        "for ax, (name, table) in zip(axes, PRESETS.items(), strict=True):\n"
        "    for kind, curve in table.items():\n"
        "        ax.plot(days, [retention(curve, created_at=t0, now=t0 + timedelta(days=d))\n"
        "                       for d in days], label=kind)\n"
        "    ax.set_title(f'preset {name}')\n"
        "    ax.set_xlabel('days since last access')\n"
        "axes[0].set_ylabel('retention R')\n"
        "axes[1].legend()"),
    new_markdown_cell(
        "Reinforcement raises stability (direct hits +0.1 × spacing, associative +0.03 × "
        "spacing), which stretches the half-life; confidence and importance stretch it "
        "too."),
    new_code_cell(
        "ep = PRESETS['spec']['episodic']\n"
        "plt.figure(figsize=(7, 4))\n"
        "for stability in (1.0, 1.5, 2.0, 3.0):\n"
        "    plt.plot(days, [retention(ep, created_at=t0, now=t0 + timedelta(days=d),\n"
        "                              stability=stability) for d in days],\n"
        "             label=f'stability {stability}')\n"
        "plt.title('episodic memory: the effect of reinforcement')\n"
        "plt.legend()\n"
        "after = [retention(ep, created_at=t0, now=t0 + timedelta(days=90), stability=s)\n"
        "         for s in (1.0, 2.0)]\n"
        "assert after[1] > after[0]"),
    new_code_cell(
        "spec = PRESETS['spec']\n"
        "late = {k: retention(c, created_at=t0, now=t0 + timedelta(days=3650))\n"
        "        for k, c in spec.items()}\n"
        "print({k: round(v, 3) for k, v in late.items()})\n"
        "assert late['core'] >= 0.6 and late['procedural'] == 1.0  # the floors hold"),
]

BENCHMARKS = [
    new_markdown_cell(
        "# Recall by mode on the shared benchmarks\n\nLoCoMo evidence recall@10 and "
        "MuSiQue Recall@2/@5 per mode, from `graphmem.bench`. The data path comes from "
        "`GRAPHMEM_DATA` (default `../shared/data`); `GRAPHMEM_NOTEBOOK_CONVERSATIONS` "
        "limits how many LoCoMo conversations run and `GRAPHMEM_NOTEBOOK_QUESTIONS` how "
        "many MuSiQue questions are asked (all by default)."),
    new_code_cell(
        "import os\n"
        "from pathlib import Path\n\n"
        "import matplotlib.pyplot as plt\n\n"
        "from graphmem import GraphMem, bench\n\n"
        "data = Path(os.environ.get('GRAPHMEM_DATA', '../../shared/data'))\n"
        "limit = int(os.environ.get('GRAPHMEM_NOTEBOOK_CONVERSATIONS', '0')) or None\n"
        "conversations = sorted((data / 'locomo').glob('conv-*.json'))[:limit]\n"
        "mem = GraphMem()\n"
        "mem.init()\n"
        "locomo = bench.locomo(mem, conversations)\n"
        "{m.mode: m.recall_at_10 for m in locomo.modes}"),
    new_code_cell(
        "cats = list(locomo.modes[0].by_category)\n"
        "fig, ax = plt.subplots(figsize=(10, 4))\n"
        "width = 0.8 / len(locomo.modes)\n"
        "for i, m in enumerate(locomo.modes):\n"
        "    ax.bar([c + i * width for c in range(len(cats))],\n"
        "           [m.by_category[c]['@10'] for c in cats], width, label=m.mode)\n"
        "ax.set_xticks([c + 0.4 - width / 2 for c in range(len(cats))], cats)\n"
        "ax.set_ylabel('evidence recall@10 (%)')\n"
        "ax.set_title(f'LoCoMo, {locomo.questions} questions')\n"
        "ax.legend()"),
    new_code_cell(
        "questions = int(os.environ.get('GRAPHMEM_NOTEBOOK_QUESTIONS', '0')) or None\n"
        "musique = bench.multihop(mem, data / 'multihop' / 'musique_train.json',\n"
        "                         limit=questions)\n"
        "fig, ax = plt.subplots(figsize=(7, 4))\n"
        "modes = list(musique.modes)\n"
        "ax.bar([i - 0.2 for i in range(len(modes))], [musique.modes[m]['@2'] for m in modes],\n"
        "       0.4, label='Recall@2')\n"
        "ax.bar([i + 0.2 for i in range(len(modes))], [musique.modes[m]['@5'] for m in modes],\n"
        "       0.4, label='Recall@5')\n"
        "ax.set_xticks(range(len(modes)), modes)\n"
        "ax.legend()\n"
        "ax.set_title(f'MuSiQue, {musique.questions} questions')\n"
        "mem.close()\n"
        "assert musique.modes['vector']['@5'] > 0"),
]


def main() -> None:
    """Write the three notebooks next to this script."""
    for name, cells in (("quickstart", QUICKSTART), ("decay", DECAY),
                        ("benchmarks", BENCHMARKS)):
        for i, cell in enumerate(cells):
            cell.id = f"{name}-{i}"  # the same file every time it is written
        nb = new_notebook(cells=cells, metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3",
                           "language": "python"}})
        nbformat.write(nb, HERE / f"{name}.ipynb")


if __name__ == "__main__":
    main()
