// The directory readers' PNG decoder, a batch at a time (paddle/utils/image_utils.py,
// `read_png_batch`): host code, not an op.
//
// A batch of 32x32 PNG files cost ~27 us a file through Pillow, most of it Python around
// a 7 us decode. Here the Python per file is one zlib call (inflate stays Python's zlib,
// which is C: paddle links no zlib of its own). Two calls a batch, each with the GIL let go:
//   png_scan:     reads the files, walks their chunks (every CRC checked), checks the header
//                 (8-bit grey, grey+alpha, RGB or RGBA, not interlaced, Pillow's
//                 decompression-bomb limit) and gathers each file's pixel data (its IDAT
//                 chunks) into one buffer;
//   png_unfilter: undoes PNG's row filters (None, Sub, Up, Average, Paeth) of the inflated
//                 data and writes the pixels, converted to the batch's channels as Pillow's
//                 `convert` does, as float32 straight into the batch.
// Anything else (a file that cannot be opened, another PNG variant, a chunk this decoder
// does not know, a wrong checksum, a truncated file, a wrong filter byte) is marked, never
// raised: the caller reads that file through Pillow (`read_image`), which decodes it or
// raises the error naming the file, exactly as for a file that never came here.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "common.h"

namespace paddle {
namespace {

// ---- CRC-32 (PNG's chunk checksum: the zlib polynomial), slicing by 8 ----------------------

struct CrcTables {
  uint32_t t[8][256];
  CrcTables() {
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; ++n)
      for (int k = 1; k < 8; ++k) t[k][n] = (t[k - 1][n] >> 8) ^ t[0][t[k - 1][n] & 0xFF];
  }
};

uint32_t crc32(const uint8_t* p, size_t n) {
  static const CrcTables tables;
  const auto& t = tables.t;
  uint32_t c = 0xFFFFFFFFu;
  for (; n >= 8; n -= 8, p += 8) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + 4, 4);
    lo ^= c;  // little-endian loads (x86, ARM): the first byte is the lowest
    c = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^ t[4][lo >> 24] ^
        t[3][hi & 0xFF] ^ t[2][(hi >> 8) & 0xFF] ^ t[1][(hi >> 16) & 0xFF] ^ t[0][hi >> 24];
  }
  for (; n; --n, ++p) c = t[0][(c ^ *p) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "png.cpp's CRC reads words little-endian"
#endif

uint32_t be32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}

// ---- reading and scanning one file ---------------------------------------------------------

// Columns of png_scan's table: where the file's pixel data lies in the buffer, its size and
// channels (0: not a file this decoder reads; the caller takes Pillow's path).
enum Column { kOffset, kLength, kWidth, kHeight, kChannels, kColumns };

const uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

// Reads n bytes at `to` (fewer only at the end of the file); the count read.
size_t read_all(int fd, char* to, size_t n) {
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd, to + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += size_t(r);
  }
  return got;
}

// Files past this size have their first 8 bytes read alone first, so that a folder of
// large photographs is not read twice (here, then by Pillow); smaller files are read in
// one call (every system call costs about a microsecond per file here).
constexpr size_t kPeekAbove = size_t(1) << 20;

// The whole file into `data`; false when it cannot be read, is not a regular file of at
// most max_bytes or does not start with PNG's signature. The caller's Pillow path then opens the file and decodes it or raises its error.
bool read_file(const char* path, int64_t max_bytes, std::string& data) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 8 &&
            st.st_size <= max_bytes;
  if (ok) {
    const size_t size = size_t(st.st_size), first = size > kPeekAbove ? 8 : size;
    data.resize(size);
    ok = read_all(fd, &data[0], first) == first &&
         std::memcmp(data.data(), kSignature, 8) == 0 &&
         read_all(fd, &data[first], size - first) == size - first;
  }
  ::close(fd);
  return ok;
}

// Chunks that change no pixel of the decoded image (Pillow keeps them in `info`); any other
// chunk (PLTE, tRNS, APNG's, unknown ones) sends the file to Pillow. image_utils._PNG_INERT.
bool inert(const uint8_t* kind) {
  static const char* const names[] = {"gAMA", "cHRM", "sRGB", "iCCP", "sBIT", "pHYs", "tEXt",
                                      "zTXt", "iTXt", "tIME", "bKGD", "eXIf", "hIST", "sPLT"};
  for (const char* name : names)
    if (std::memcmp(kind, name, 4) == 0) return true;
  return false;
}

// Channels of an 8-bit PNG colour type: grey 1, grey+alpha 2, RGB 3, RGBA 4; 0 otherwise.
int channels_of(int color) {
  switch (color) {
    case 0: return 1;
    case 4: return 2;
    case 2: return 3;
    case 6: return 4;
    default: return 0;
  }
}

// The largest inflated image this decoder takes (bytes); larger ones go to Pillow.
constexpr int64_t kMaxRaw = int64_t(1) << 31;

// Fills row[kOffset..kChannels] and appends the file's pixel data to `pixels` when `file` is
// a PNG file this decoder reads (as image_utils._simple_png decides); leaves kChannels 0
// otherwise. max_pixels < 0: no pixel limit.
void scan(const std::string& file, int64_t max_pixels, std::string& pixels, int64_t* row) {
  const auto* data = reinterpret_cast<const uint8_t*>(file.data());
  const size_t end = file.size();
  if (end < 8 || std::memcmp(data, kSignature, 8) != 0) return;
  const size_t start = pixels.size();
  size_t pos = 8;
  int channels = 0;
  bool header = false, ended = false, found = false;
  while (pos + 12 <= end) {
    const size_t length = be32(data + pos);
    const uint8_t* kind = data + pos + 4;
    if (length > end - pos - 12) break;  // the chunk and its CRC do not fit: truncated
    const uint8_t* body = data + pos + 8;
    if (crc32(kind, length + 4) != be32(body + length)) break;
    if (!header) {
      if (std::memcmp(kind, "IHDR", 4) != 0 || length != 13) break;
      const int64_t width = be32(body), height = be32(body + 4);
      channels = body[8] == 8 ? channels_of(body[9]) : 0;
      if (!channels || body[10] || body[11] || body[12] || !width || !height) break;
      if (width > 0x7FFFFFFF || height > 0x7FFFFFFF) break;  // PNG's own limit
      if (max_pixels >= 0 && width * height > max_pixels) break;
      if (width * height > kMaxRaw || height * (1 + width * channels) > kMaxRaw) break;
      row[kWidth] = width;
      row[kHeight] = height;
      header = true;
    } else if (std::memcmp(kind, "IDAT", 4) == 0) {
      if (ended) break;  // pixel data in two runs: Pillow stops at the first
      pixels.append(reinterpret_cast<const char*>(body), length);
      found = true;
    } else if (std::memcmp(kind, "IEND", 4) == 0) {
      if (found) {
        row[kOffset] = int64_t(start);
        row[kLength] = int64_t(pixels.size() - start);
        row[kChannels] = channels;
        return;
      }
      break;
    } else if (inert(kind)) {
      ended = found;
    } else {
      break;
    }
    pos += length + 12;
  }
  pixels.resize(start);  // not this decoder's file: drop what it gathered
}

// paths: the file names, each ended by a NUL (a name cannot hold one).
py::tuple png_scan(const py::bytes& paths, int64_t max_pixels, int64_t max_bytes) {
  const std::string names = paths;
  if (!names.empty() && names.back() != '\0')
    fail("png_scan", "expected the file names each ended by a NUL byte, received " +
                         std::to_string(names.size()) + " bytes not ending with one");
  const auto n = static_cast<py::ssize_t>(std::count(names.begin(), names.end(), '\0'));
  py::array_t<int64_t> table({n, py::ssize_t(kColumns)});
  int64_t* t = table.mutable_data();
  std::fill(t, t + n * kColumns, int64_t(0));
  std::string pixels;
  {
    py::gil_scoped_release release;  // nothing below touches a Python object
    std::string file;
    const char* name = names.c_str();
    for (py::ssize_t k = 0; k < n; ++k, name += std::strlen(name) + 1)
      if (read_file(name, max_bytes, file)) scan(file, max_pixels, pixels, t + k * kColumns);
  }
  return py::make_tuple(py::bytes(pixels), table);
}

// ---- unfiltering and converting ------------------------------------------------------------

// PNG's Paeth predictor of a byte from its left (a), upper (b) and upper-left (c)
// neighbours, in libpng's form (the same choice as the specification's), selected with
// masks: on noisy images the choice is random and branches mispredicted half the time
// (13 cycles a byte).
inline int paeth(int a, int b, int c) {
  const int p = b - c, q = a - c;
  int pa = std::abs(p);
  const int pb = std::abs(q), pc = std::abs(p + q);
  const int take_b = -int(pb < pa);  // all ones or zero
  a = (a & ~take_b) | (b & take_b);
  pa = (pa & ~take_b) | (pb & take_b);
  const int take_c = -int(pc < pa);
  return (a & ~take_c) | (c & take_c);
}

// Undoes one row's filter in place: cur (the row's n bytes after its filter byte), prev (the
// unfiltered row above, zeros for the first), BPP bytes a pixel. The left pixel is kept in
// registers: through memory, each byte waited for the store of the one BPP before it.
// False for a filter byte PNG does not define.
template <int BPP>
bool unfilter(int filter, uint8_t* cur, const uint8_t* prev, size_t n) {
  uint8_t left[BPP] = {}, up_left[BPP] = {};
  switch (filter) {
    case 0: return true;
    case 1:
      for (size_t i = 0; i < n; i += BPP)
        for (int c = 0; c < BPP; ++c) left[c] = cur[i + c] = uint8_t(cur[i + c] + left[c]);
      return true;
    case 2:
      for (size_t i = 0; i < n; ++i) cur[i] = uint8_t(cur[i] + prev[i]);
      return true;
    case 3:
      for (size_t i = 0; i < n; i += BPP)
        for (int c = 0; c < BPP; ++c)
          left[c] = cur[i + c] = uint8_t(cur[i + c] + ((int(left[c]) + prev[i + c]) >> 1));
      return true;
    case 4:
      for (size_t i = 0; i < n; i += BPP)
        for (int c = 0; c < BPP; ++c) {
          const uint8_t up = prev[i + c];
          left[c] = cur[i + c] = uint8_t(cur[i + c] + paeth(left[c], up, up_left[c]));
          up_left[c] = up;
        }
      return true;
    default: return false;
  }
}

bool unfilter(int filter, uint8_t* cur, const uint8_t* prev, size_t n, int bpp) {
  switch (bpp) {
    case 1: return unfilter<1>(filter, cur, prev, n);
    case 2: return unfilter<2>(filter, cur, prev, n);
    case 3: return unfilter<3>(filter, cur, prev, n);
    default: return unfilter<4>(filter, cur, prev, n);
  }
}

// Pillow's luma of an RGB pixel (Convert.c, L24): ITU-R 601-2 in 16-bit fixed point.
inline float luma(const uint8_t* p) {
  return float((p[0] * 19595 + p[1] * 38470 + p[2] * 7471 + 0x8000) >> 16);
}

// One unfiltered row of `width` pixels of cin channels (grey, grey+alpha, RGB, RGBA) as
// float32 pixels of cout channels (grey, RGB, RGBA), as Pillow's `convert` gives them.
void convert_row(const uint8_t* in, float* out, size_t width, int cin, int cout) {
  if (cin == cout) {
    for (size_t i = 0; i < width * size_t(cin); ++i) out[i] = in[i];
    return;
  }
  for (size_t x = 0; x < width; ++x, in += cin, out += cout) {
    const bool grey = cin <= 2;
    if (cout == 1) {
      out[0] = grey ? float(in[0]) : luma(in);  // the alpha is dropped
    } else {
      for (int c = 0; c < 3; ++c) out[c] = grey ? in[0] : in[c];
      if (cout == 4) out[3] = cin == 2 || cin == 4 ? in[cin - 1] : 255.0f;
    }
  }
}

// Decodes the inflated pixel data of file k, data[starts[k]:] (none when starts[k] is -1),
// an image of table[k]'s channels and the batch's height and width, into out[k]; returns
// the indices it could not decode (a wrong filter byte): the caller reads those files
// through Pillow.
py::list png_unfilter(const py::bytes& data, const py::array& starts, const py::array& table,
                      py::array& out) {
  const char* op = "png_unfilter";
  check_array(out, op, "out", kFloat32, -1, kWrite);
  if (out.ndim() != 4 || out.shape(3) < 1 || out.shape(3) > 4 || out.shape(3) == 2)
    fail(op, "expected out of shape (files, height, width, 1, 3 or 4), received " +
                 std::to_string(out.ndim()) + " dimensions");
  const int64_t n = out.shape(0), height = out.shape(1), width = out.shape(2);
  const int cout = int(out.shape(3));
  check_array(starts, op, "starts", kInt64, n, kRead);
  check_array(table, op, "table", kInt64, n * kColumns, kRead);
  char* bytes = nullptr;
  py::ssize_t length = 0;
  if (PyBytes_AsStringAndSize(data.ptr(), &bytes, &length) != 0) throw py::error_already_set();
  const auto* src0 = reinterpret_cast<const uint8_t*>(bytes);
  const int64_t* t = in_ptr<int64_t>(table);
  const int64_t* at = in_ptr<int64_t>(starts);
  for (int64_t k = 0; k < n; ++k) {
    if (at[k] == -1) continue;
    const int64_t* row = t + k * kColumns;
    const int64_t cin = row[kChannels];
    const bool fits = cin >= 1 && cin <= 4 && row[kWidth] == width && row[kHeight] == height;
    // height * (1 + width * cin) bytes: out exists, so height * width * cout does not overflow
    const int64_t size = fits ? height * (1 + width * cin) : 0;
    if (!fits || at[k] < 0 || at[k] > int64_t(length) || size > int64_t(length) - at[k])
      fail(op, "file " + std::to_string(k) + ": expected a " + std::to_string(height) + "x" +
                   std::to_string(width) + " image of 1 to 4 channels inside data (" +
                   std::to_string(length) + " bytes), received start " +
                   std::to_string(at[k]) + ", table row (" + std::to_string(row[kWidth]) +
                   ", " + std::to_string(row[kHeight]) + ", " + std::to_string(cin) + ")");
  }
  float* o = out_ptr<float>(out);
  std::vector<int64_t> failed;
  {
    py::gil_scoped_release release;  // the caller holds `data` alive
    std::vector<uint8_t> rows(size_t(2 * width * 4));
    for (int64_t k = 0; k < n; ++k) {
      if (at[k] == -1) continue;
      const int cin = int(t[k * kColumns + kChannels]);
      const size_t stride = size_t(width) * size_t(cin);
      uint8_t* prev = rows.data();
      uint8_t* cur = prev + stride;
      std::fill(prev, prev + stride, uint8_t(0));
      const uint8_t* src = src0 + at[k];
      float* dst = o + k * height * width * cout;
      for (int64_t y = 0; y < height; ++y, src += stride + 1, dst += width * cout) {
        std::memcpy(cur, src + 1, stride);
        if (!unfilter(src[0], cur, prev, stride, cin)) {
          failed.push_back(k);
          break;
        }
        convert_row(cur, dst, size_t(width), cin, cout);
        std::swap(prev, cur);
      }
    }
  }
  py::list result;
  for (int64_t k : failed) result.append(k);
  return result;
}

}  // namespace

void init_png(py::module_& m) {
  m.def("png_scan", &png_scan, py::arg("paths"), py::arg("max_pixels"), py::arg("max_bytes"),
        "(pixel data of every file, an int64 table (files, 5): offset, length, width, "
        "height, channels; channels 0 for a file to read through Pillow) of the file names "
        "`paths`, each ended by a NUL byte");
  m.def("png_unfilter", &png_unfilter, py::arg("data"), array_arg("starts"),
        array_arg("table"), array_arg("out"),
        "the inflated pixel data of file k, data[starts[k]:] (-1: skipped), unfiltered into "
        "float32 out[k], converted to out's channels; returns the indices whose filter "
        "bytes were wrong");
}

}  // namespace paddle
