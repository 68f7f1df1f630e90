// C++17 host of the installed library: the header's extern "C" guards, a padded RGBA
// copy checked byte by byte, and ic_parallel_for driving a plain static function.
#include <imagecore.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
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

// A JPEG of a light page on a darker background, 480 x 360 gray, encoded by the library.
std::vector<uint8_t> make_jpeg() {
    constexpr int32_t w = 480, h = 360;
    std::vector<uint8_t> gray(size_t(w) * h);
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++)
            gray[size_t(y) * w + size_t(x)] = (x > 100 && x < 380 && y > 60 && y < 300) ? uint8_t(220 - (y % 30 < 2) * 120) : uint8_t(60);
    ic_image img{};
    img.format = IC_FORMAT_GRAY8;
    img.width = w;
    img.height = h;
    img.planes[0].data = gray.data();
    img.planes[0].stride = size_t(w);
    uint8_t *bytes = nullptr;
    size_t size = 0;
    if (ic_jpeg_encode_alloc(&img, nullptr, &bytes, &size) != IC_OK) return {};
    std::vector<uint8_t> out(bytes, bytes + size);
    ic_jpeg_free(bytes);
    return out;
}

// Scratch for the one-call systems: 64-byte aligned inside an over-sized vector.
struct Scratch {
    std::vector<uint8_t> block;
    explicit Scratch(size_t n) : block(n + 64) {}
    void *data() { return reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(block.data()) + 63) & ~uintptr_t(63)); }
};

// A thumbnail and a scan through the one-call API.
bool systems() {
    const std::vector<uint8_t> jpeg = make_jpeg();
    if (jpeg.empty()) return false;
    ic_thumbnail_options to{};
    to.max_width = 100;
    to.max_height = 100;
    to.format = IC_FORMAT_GRAY8;
    ic_thumbnail_plan tp{};
    bool ok = ic_thumbnail_plan_jpeg(jpeg.data(), jpeg.size(), &to, &tp) == IC_OK && tp.width == 100 && tp.height == 75;
    Scratch ts(tp.scratch_size);
    std::vector<uint8_t> thumb(size_t(tp.width) * size_t(tp.height));
    ic_image t{};
    t.format = IC_FORMAT_GRAY8;
    t.width = tp.width;
    t.height = tp.height;
    t.planes[0].data = thumb.data();
    t.planes[0].stride = size_t(tp.width);
    ok = ok && ic_thumbnail_jpeg(jpeg.data(), jpeg.size(), &tp, ts.data(), tp.scratch_size, &t, nullptr) == IC_OK;
    ok = ok && thumb[size_t(37) * 100 + 50] > 150 && thumb[2] < 100;  // page inside, background outside

    ic_scan_options so{};
    const double corners[4][2] = {{100, 60}, {380, 60}, {380, 300}, {100, 300}};
    for (int i = 0; i < 4; i++) so.corners.corners[i] = ic_point{corners[i][0], corners[i][1]};
    so.size.kind = IC_SIZE_LONG_SIDE;
    so.size.long_side = 280;
    so.mode = IC_ENHANCE_BW;
    ic_scan_plan sp{};
    ok = ok && ic_scan_plan_jpeg(jpeg.data(), jpeg.size(), &so, &sp) == IC_OK && sp.width == 280 && sp.height == 240;
    Scratch ss(sp.scratch_size);
    std::vector<uint8_t> page(size_t(sp.width) * size_t(sp.height));
    ic_image d{};
    d.format = IC_FORMAT_GRAY8;
    d.width = sp.width;
    d.height = sp.height;
    d.planes[0].data = page.data();
    d.planes[0].stride = size_t(sp.width);
    std::vector<uint8_t> encoded;
    auto write = [](void *context, const uint8_t *data, size_t size) -> ic_status {
        auto *v = static_cast<std::vector<uint8_t> *>(context);
        v->insert(v->end(), data, data + size);
        return IC_OK;
    };
    size_t n = 0;
    ok = ok && ic_scan_jpeg(jpeg.data(), jpeg.size(), &sp, ss.data(), sp.scratch_size, &d, write, &encoded, &n) == IC_OK;
    ok = ok && n == encoded.size() && n > 0;
    int32_t w = 0, h = 0;
    ok = ok && ic_jpeg_decode_size(encoded.data(), encoded.size(), nullptr, &w, &h, nullptr) == IC_OK && w == 280 && h == 240;
    std::printf("host_cpp: thumbnail %dx%d at %d/8, scan %dx%d (%zu bytes): %s\n", int(tp.width), int(tp.height),
                int(tp.scale_num), int(sp.width), int(sp.height), n, ok ? "ok" : "FAILED");
    return ok;
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

    ok = systems() && ok;
    std::printf("host_cpp: %s (%ld chunks on up to %d threads, backend %s)\n", ok ? "ok" : "FAILED",
                v.chunks.load(), ic_get_num_threads(), ic_parallel_backend());
    return ok ? 0 : 1;
}
