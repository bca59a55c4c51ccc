"""What the random AIR program generators share (grad_torch.py,
differential.py): fresh names, parameters, a pool of values to pick operands
from, kernel text and numpy's broadcasting of shapes."""


class RandomProgram:
    def __init__(self, rng):
        self.rng = rng
        self.params = []  # (name, shape)
        self.pool = []  # (name, shape) values available as operands
        self.used = set()
        self.count = 0

    def fresh(self):
        self.count += 1
        return "v%d" % self.count

    def param(self, shape):
        name = "p%d" % len(self.params)
        self.params.append((name, list(shape)))
        self.pool.append((name, list(shape)))
        return name, list(shape)

    @staticmethod
    def k(op, *args, **attrs):
        parts = [op] + ["%" + a if isinstance(a, str) else repr(a) for a in args]
        parts += ["%s=%s" % (key, val) for key, val in attrs.items()]
        return "kernel(%s)" % ", ".join(parts)

    def pick(self, rank=None, min_dims=None):
        cands = [v for v in self.pool
                 if (rank is None or len(v[1]) == rank) and
                 (min_dims is None or
                  all(d >= m for d, m in zip(v[1], min_dims)))]
        if not cands:
            return None
        # Prefer values nothing uses yet, so that most of the program counts.
        fresh = [v for v in cands if v[0] not in self.used]
        v = self.rng.choice(fresh if fresh and self.rng.random() < 0.7 else cands)
        self.used.add(v[0])
        return v

    @staticmethod
    def broadcast(a, b):
        out = []
        for i in range(max(len(a), len(b))):
            x = a[len(a) - 1 - i] if i < len(a) else 1
            y = b[len(b) - 1 - i] if i < len(b) else 1
            if x != y and x != 1 and y != 1:
                return None
            out.append(max(x, y))
        return out[::-1]
