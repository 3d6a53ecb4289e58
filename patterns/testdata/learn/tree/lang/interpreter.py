class StreamExecutor:
    def submit(self, expr):
        if expr is None:
            raise TypeError("Cannot submit an empty expression to the interpreter")
        log = self.log
        log.warning("Interpreter received %d pending expressions", len(self.queue))
