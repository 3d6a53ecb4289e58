def f():
    raise ValueError("This message lives in test code and must be skipped")
