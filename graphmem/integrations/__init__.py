"""graphmem inside agent frameworks: a LangGraph store (`langgraph`) and a LangChain
retriever (`langchain`), each an optional extra (`pip install graphmem[agents]`)."""
