"""The LangGraph store's filters, matched in Python: fields by name or dotted path,
nested maps and lists, and the comparison operators."""

from graphmem.integrations.langgraph import field, matches

VALUE = {"user": {"access-level": "nested", "123abc": "ok2"}, "a.b": 1, "tags": ["x"],
         "price": 10}


def test_a_key_is_read_whole_before_it_is_read_as_a_dotted_path() -> None:
    assert field(VALUE, "a.b") == 1
    assert field(VALUE, "user.access-level") == "nested"
    assert field(VALUE, "user.123abc") == "ok2"
    assert field(VALUE, "user.missing") is None
    assert field(VALUE, "tags.0") is None  # lists are no path: LangGraph's SQL stores agree


def test_values_match_as_in_memory_store_compares_them() -> None:
    assert matches(VALUE["tags"], ["x"])
    assert not matches(VALUE["tags"], ["x", "y"])
    assert matches(VALUE["user"], {"access-level": "nested"})
    assert matches(VALUE["price"], {"$gt": 5, "$lte": 10})
    assert not matches(VALUE["price"], {"$lt": 10})
    assert not matches(None, {"$gt": 0})  # a missing field matches no comparison
