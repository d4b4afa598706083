# difficulty: Medium
# topic: two-pointers-sorting
def three_band_partition(tiles: List[int]) -> List[int]:
    pivot = tiles[0]
    low, cur, high = 0, 0, len(tiles) - 1
    while cur <= high:
        if tiles[cur] < pivot:
            tiles[low], tiles[cur] = tiles[cur], tiles[low]
            low += 1
            cur += 1
        elif tiles[cur] > pivot:
            tiles[cur], tiles[high] = tiles[high], tiles[cur]
            high -= 1
        else:
            cur += 1
    return tiles
