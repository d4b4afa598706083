# difficulty: Medium
# topic: prefix-sums-hashing
def paint_layers(orders: List[int]) -> List[int]:
    size = 8
    diff = [0] * (size + 1)
    for i in range(0, len(orders) - 1, 2):
        start = abs(orders[i]) % size
        stop = start + abs(orders[i + 1]) % (size - start) + 1
        diff[start] += orders[i] % 5 + 1
        diff[stop] -= orders[i] % 5 + 1
    layers = []
    running = 0
    for i in range(size):
        running += diff[i]
        layers.append(running)
    return layers
