// C++17 host of the installed library: the header's extern "C" guards, a padded RGBA
// copy checked byte by byte, and ic_parallel_for driving a plain static function.
#include <imagecore.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <vector>

namespace {

constexpr int32_t kW = 333, kH = 77;
constexpr uint8_t kSent = 0xA5;

struct Visits {
    std::vector<std::atomic<int>> hits;
    std::atomic<long> chunks{0};
    explicit Visits(size_t n) : hits(n) {}
};

void visit(void *context, int64_t begin, int64_t end) {
    auto *v = static_cast<Visits *>(context);
    v->chunks.fetch_add(1, std::memory_order_relaxed);
    for (int64_t i = begin; i < end; i++) v->hits[size_t(i)].fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

int main() {
    ic_layout layout{};
    if (ic_layout_compute(IC_FORMAT_RGBA8, kW, kH, 64, &layout) != IC_OK) return 1;
    const size_t row_bytes = layout.row_bytes[0], stride = layout.stride[0];
    if (stride <= row_bytes) return 1;  // the test wants padding
    std::vector<uint8_t> src(layout.total_size), dst(layout.total_size, kSent);
    for (size_t i = 0; i < src.size(); i++) src[i] = uint8_t(i * 13 + 5);

    ic_image s{}, d{};
    if (ic_image_init(&s, IC_FORMAT_RGBA8, IC_ALPHA_PREMULTIPLIED, kW, kH, src.data(), &layout) != IC_OK ||
        ic_image_init(&d, IC_FORMAT_RGBA8, IC_ALPHA_PREMULTIPLIED, kW, kH, dst.data(), &layout) != IC_OK)
        return 1;
    bool ok = ic_image_copy(&s, &d) == IC_OK;
    for (size_t i = 0; i < dst.size(); i++)
        ok = ok && dst[i] == (i % stride < row_bytes ? src[i] : kSent);
    std::fill(dst.begin(), dst.end(), kSent);
    ok = ok && ic_plane_copy(src.data(), stride, dst.data(), stride, row_bytes, kH) == IC_OK;
    for (size_t i = 0; i < dst.size(); i++)
        ok = ok && dst[i] == (i % stride < row_bytes ? src[i] : kSent);

    constexpr int64_t kCount = 100003;
    Visits v(kCount);
    ok = ok && ic_parallel_for(kCount, 64, visit, &v) == IC_OK;
    for (auto &h : v.hits) ok = ok && h.load() == 1;
    ok = ok && v.chunks.load() >= 1;

    std::printf("host_cpp: %s (%ld chunks on up to %d threads, backend %s)\n", ok ? "ok" : "FAILED",
                v.chunks.load(), ic_get_num_threads(), ic_parallel_backend());
    return ok ? 0 : 1;
}
