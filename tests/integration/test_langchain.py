"""GraphMemRetriever is a LangChain retriever: a real LCEL chain (`retriever |
format_docs`) and its async form return graphmem's recall as Documents, on the real
server."""

from __future__ import annotations

import asyncio

from langchain_core.documents import Document
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnablePassthrough

from graphmem.api import GraphMem
from graphmem.integrations.langchain import GraphMemRetriever


def _format(docs: list[Document]) -> str:
    return "\n".join(f"[{d.metadata['id']}] {d.page_content}" for d in docs)


def test_an_lcel_chain_uses_the_retriever(mem: GraphMem) -> None:
    mem.remember([{"id": "tea", "text": "Ana drinks jasmine tea every afternoon",
                   "metadata": {"topic": "food"}},
                  {"id": "bike", "text": "Ana rides a red bicycle to work",
                   "metadata": {"topic": "travel"}},
                  {"id": "rome", "text": "The team offsite is in Rome in June",
                   "metadata": {"topic": "travel"}}])
    retriever = GraphMemRetriever(mem=mem, top_k=2)
    docs = retriever.invoke("What does Ana drink?")
    assert docs[0].metadata["id"] == "tea" and docs[0].id == "tea"
    assert docs[0].metadata["scope"] == mem.settings.scope
    assert docs[0].metadata["score"] >= docs[-1].metadata["score"]
    prompt = ChatPromptTemplate.from_template("Context:\n{context}\n\nQuestion: {question}")
    chain = ({"context": retriever | RunnableLambda(_format),
              "question": RunnablePassthrough()} | prompt | RunnableLambda(
                  lambda p: p.to_string()) | StrOutputParser())
    text = chain.invoke("How does Ana get to work?")
    assert "[bike] Ana rides a red bicycle to work" in text
    filtered = GraphMemRetriever(mem=mem, top_k=5, filters={"topic": ["travel"]})
    assert {d.metadata["id"] for d in filtered.invoke("Ana")} <= {"bike", "rome"}
    docs = asyncio.run(retriever.ainvoke("team offsite city"))
    assert docs[0].metadata["id"] == "rome"
