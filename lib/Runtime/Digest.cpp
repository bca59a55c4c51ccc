//===- Digest.cpp - MD5, SHA-1 and SHA-2 for States.Hash ------------------===//
//
// Straight implementations of RFC 1321 (MD5) and FIPS 180-4 (SHA-1, SHA-256,
// SHA-384, SHA-512). The runtime links no crypto library: these digests
// compute the values users ask for, and SHA-256 is the hash of the HTTP
// gateway's HMAC signatures (HttpAuth.cpp), so a small self-contained file
// is enough. The round constants were derived from their definitions
// (sines, square and cube roots of primes) and the tests check the digests
// against published vectors.
//
//===----------------------------------------------------------------------===//
#include "Digest.h"

#include <cstdint>
#include <cstring>

using namespace unum::runtime;

namespace {

uint32_t rotl32(uint32_t x, unsigned n) { return (x << n) | (x >> (32 - n)); }

/// A big-endian word (32 or 64 bits) at `p`.
template <typename Word> Word loadBe(const unsigned char *p) {
  Word x = 0;
  for (size_t b = 0; b < sizeof(Word); ++b)
    x = Word(x << 8 | p[b]);
  return x;
}
uint32_t le32(const unsigned char *p) {
  return uint32_t(p[3]) << 24 | uint32_t(p[2]) << 16 | uint32_t(p[1]) << 8 |
         uint32_t(p[0]);
}
void putBe(std::string &out, uint64_t v, unsigned bytes) {
  for (unsigned i = bytes; i-- > 0;)
    out += char((v >> (8 * i)) & 0xff);
}
void putLe(std::string &out, uint64_t v, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i)
    out += char((v >> (8 * i)) & 0xff);
}

/// Feeds `data` to `block` in `size`-byte blocks, the last ones carrying the
/// Merkle-Damgard padding: 0x80, zeros, then the bit length in `lenBytes`
/// bytes (big- or little-endian).
template <typename Fn>
void blocks(std::string_view data, size_t size, unsigned lenBytes,
            bool bigEndian, Fn block) {
  size_t full = data.size() / size * size;
  for (size_t i = 0; i < full; i += size)
    block(reinterpret_cast<const unsigned char *>(data.data() + i));
  std::string tail(data.substr(full));
  tail += char(0x80);
  while (tail.size() % size != size - lenBytes)
    tail += char(0);
  uint64_t bits = uint64_t(data.size()) * 8;
  if (bigEndian) {
    tail.append(lenBytes - 8, char(0)); // sizes beyond 2^64 bits never occur
    putBe(tail, bits, 8);
  } else {
    putLe(tail, bits, 8);
    tail.append(lenBytes - 8, char(0));
  }
  for (size_t i = 0; i < tail.size(); i += size)
    block(reinterpret_cast<const unsigned char *>(tail.data() + i));
}

std::string md5(std::string_view data) {
  static const uint32_t K[64] = {
      0xd76aa478u, 0xe8c7b756u, 0x242070dbu, 0xc1bdceeeu, 0xf57c0fafu,
      0x4787c62au, 0xa8304613u, 0xfd469501u, 0x698098d8u, 0x8b44f7afu,
      0xffff5bb1u, 0x895cd7beu, 0x6b901122u, 0xfd987193u, 0xa679438eu,
      0x49b40821u, 0xf61e2562u, 0xc040b340u, 0x265e5a51u, 0xe9b6c7aau,
      0xd62f105du, 0x02441453u, 0xd8a1e681u, 0xe7d3fbc8u, 0x21e1cde6u,
      0xc33707d6u, 0xf4d50d87u, 0x455a14edu, 0xa9e3e905u, 0xfcefa3f8u,
      0x676f02d9u, 0x8d2a4c8au, 0xfffa3942u, 0x8771f681u, 0x6d9d6122u,
      0xfde5380cu, 0xa4beea44u, 0x4bdecfa9u, 0xf6bb4b60u, 0xbebfbc70u,
      0x289b7ec6u, 0xeaa127fau, 0xd4ef3085u, 0x04881d05u, 0xd9d4d039u,
      0xe6db99e5u, 0x1fa27cf8u, 0xc4ac5665u, 0xf4292244u, 0x432aff97u,
      0xab9423a7u, 0xfc93a039u, 0x655b59c3u, 0x8f0ccc92u, 0xffeff47du,
      0x85845dd1u, 0x6fa87e4fu, 0xfe2ce6e0u, 0xa3014314u, 0x4e0811a1u,
      0xf7537e82u, 0xbd3af235u, 0x2ad7d2bbu, 0xeb86d391u};
  static const unsigned S[4][4] = {
      {7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};
  uint32_t h[4] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u};
  blocks(data, 64, 8, false, [&](const unsigned char *p) {
    uint32_t m[16];
    for (unsigned i = 0; i < 16; ++i)
      m[i] = le32(p + 4 * i);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
    for (unsigned i = 0; i < 64; ++i) {
      uint32_t f;
      unsigned g;
      switch (i / 16) {
      case 0:
        f = (b & c) | (~b & d);
        g = i;
        break;
      case 1:
        f = (d & b) | (~d & c);
        g = (5 * i + 1) % 16;
        break;
      case 2:
        f = b ^ c ^ d;
        g = (3 * i + 5) % 16;
        break;
      default:
        f = c ^ (b | ~d);
        g = (7 * i) % 16;
        break;
      }
      uint32_t next = b + rotl32(a + f + K[i] + m[g], S[i / 16][i % 4]);
      a = d;
      d = c;
      c = b;
      b = next;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
  });
  std::string out;
  for (uint32_t v : h)
    putLe(out, v, 4);
  return out;
}

std::string sha1(std::string_view data) {
  uint32_t h[5] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u,
                   0xc3d2e1f0u};
  blocks(data, 64, 8, true, [&](const unsigned char *p) {
    uint32_t w[80];
    for (unsigned i = 0; i < 16; ++i)
      w[i] = loadBe<uint32_t>(p + 4 * i);
    for (unsigned i = 16; i < 80; ++i)
      w[i] = rotl32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (unsigned i = 0; i < 80; ++i) {
      uint32_t f, k;
      if (i < 20) {
        f = (b & c) | (~b & d);
        k = 0x5a827999u;
      } else if (i < 40) {
        f = b ^ c ^ d;
        k = 0x6ed9eba1u;
      } else if (i < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8f1bbcdcu;
      } else {
        f = b ^ c ^ d;
        k = 0xca62c1d6u;
      }
      uint32_t t = rotl32(a, 5) + f + e + k + w[i];
      e = d;
      d = c;
      c = rotl32(b, 30);
      b = a;
      a = t;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
  });
  std::string out;
  for (uint32_t v : h)
    putBe(out, v, 4);
  return out;
}

/// What SHA-256 and SHA-512 (and SHA-384, SHA-512 from another start)
/// differ in: the word size, the round constants and the rotations.
struct Sha256 {
  using Word = uint32_t;
  static constexpr unsigned rounds = 64;
  static constexpr unsigned sigma0[3] = {7, 18, 3}, sigma1[3] = {17, 19, 10};
  static constexpr unsigned Sigma0[3] = {2, 13, 22}, Sigma1[3] = {6, 11, 25};
  static constexpr Word K[64] = {
      0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu,
      0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u, 0xd807aa98u, 0x12835b01u,
      0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u,
      0xc19bf174u, 0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu,
      0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau, 0x983e5152u,
      0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u,
      0x06ca6351u, 0x14292967u, 0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu,
      0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
      0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u,
      0xd6990624u, 0xf40e3585u, 0x106aa070u, 0x19a4c116u, 0x1e376c08u,
      0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu,
      0x682e6ff3u, 0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u,
      0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u};
  static constexpr Word start[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u,
                                    0xa54ff53au, 0x510e527fu, 0x9b05688cu,
                                    0x1f83d9abu, 0x5be0cd19u};
};

struct Sha512 {
  using Word = uint64_t;
  static constexpr unsigned rounds = 80;
  static constexpr unsigned sigma0[3] = {1, 8, 7}, sigma1[3] = {19, 61, 6};
  static constexpr unsigned Sigma0[3] = {28, 34, 39}, Sigma1[3] = {14, 18, 41};
  static constexpr Word K[80] = {
      0x428a2f98d728ae22ULL, 0x7137449123ef65cdULL, 0xb5c0fbcfec4d3b2fULL,
      0xe9b5dba58189dbbcULL, 0x3956c25bf348b538ULL, 0x59f111f1b605d019ULL,
      0x923f82a4af194f9bULL, 0xab1c5ed5da6d8118ULL, 0xd807aa98a3030242ULL,
      0x12835b0145706fbeULL, 0x243185be4ee4b28cULL, 0x550c7dc3d5ffb4e2ULL,
      0x72be5d74f27b896fULL, 0x80deb1fe3b1696b1ULL, 0x9bdc06a725c71235ULL,
      0xc19bf174cf692694ULL, 0xe49b69c19ef14ad2ULL, 0xefbe4786384f25e3ULL,
      0x0fc19dc68b8cd5b5ULL, 0x240ca1cc77ac9c65ULL, 0x2de92c6f592b0275ULL,
      0x4a7484aa6ea6e483ULL, 0x5cb0a9dcbd41fbd4ULL, 0x76f988da831153b5ULL,
      0x983e5152ee66dfabULL, 0xa831c66d2db43210ULL, 0xb00327c898fb213fULL,
      0xbf597fc7beef0ee4ULL, 0xc6e00bf33da88fc2ULL, 0xd5a79147930aa725ULL,
      0x06ca6351e003826fULL, 0x142929670a0e6e70ULL, 0x27b70a8546d22ffcULL,
      0x2e1b21385c26c926ULL, 0x4d2c6dfc5ac42aedULL, 0x53380d139d95b3dfULL,
      0x650a73548baf63deULL, 0x766a0abb3c77b2a8ULL, 0x81c2c92e47edaee6ULL,
      0x92722c851482353bULL, 0xa2bfe8a14cf10364ULL, 0xa81a664bbc423001ULL,
      0xc24b8b70d0f89791ULL, 0xc76c51a30654be30ULL, 0xd192e819d6ef5218ULL,
      0xd69906245565a910ULL, 0xf40e35855771202aULL, 0x106aa07032bbd1b8ULL,
      0x19a4c116b8d2d0c8ULL, 0x1e376c085141ab53ULL, 0x2748774cdf8eeb99ULL,
      0x34b0bcb5e19b48a8ULL, 0x391c0cb3c5c95a63ULL, 0x4ed8aa4ae3418acbULL,
      0x5b9cca4f7763e373ULL, 0x682e6ff3d6b2b8a3ULL, 0x748f82ee5defb2fcULL,
      0x78a5636f43172f60ULL, 0x84c87814a1f0ab72ULL, 0x8cc702081a6439ecULL,
      0x90befffa23631e28ULL, 0xa4506cebde82bde9ULL, 0xbef9a3f7b2c67915ULL,
      0xc67178f2e372532bULL, 0xca273eceea26619cULL, 0xd186b8c721c0c207ULL,
      0xeada7dd6cde0eb1eULL, 0xf57d4f7fee6ed178ULL, 0x06f067aa72176fbaULL,
      0x0a637dc5a2c898a6ULL, 0x113f9804bef90daeULL, 0x1b710b35131c471bULL,
      0x28db77f523047d84ULL, 0x32caab7b40c72493ULL, 0x3c9ebe0a15c9bebcULL,
      0x431d67c49c100d4cULL, 0x4cc5d4becb3e42b6ULL, 0x597f299cfc657e2aULL,
      0x5fcb6fab3ad6faecULL, 0x6c44198c4a475817ULL};
  static constexpr Word start[8] = {
      0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
      0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
      0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};
  static constexpr Word start384[8] = {
      0xcbbb9d5dc1059ed8ULL, 0x629a292a367cd507ULL, 0x9159015a3070dd17ULL,
      0x152fecd8f70e5939ULL, 0x67332667ffc00b31ULL, 0x8eb44a8768581511ULL,
      0xdb0c2e0d64f98fa7ULL, 0x47b5481dbefa4fa4ULL};
};

/// FIPS 180-4's SHA-2 over `Sha`'s words, from `start`, giving the first
/// `outWords` words of the final state.
template <typename Sha>
std::string sha2(std::string_view data, const typename Sha::Word (&start)[8],
                 unsigned outWords) {
  using Word = typename Sha::Word;
  constexpr unsigned bits = sizeof(Word) * 8;
  auto rotr = [](Word x, unsigned n) {
    return Word((x >> n) | (x << (bits - n)));
  };
  // Two rotations and a shift (sigma), or three rotations (Sigma).
  auto sigma = [&](Word x, const unsigned(&r)[3]) {
    return Word(rotr(x, r[0]) ^ rotr(x, r[1]) ^ (x >> r[2]));
  };
  auto Sigma = [&](Word x, const unsigned(&r)[3]) {
    return Word(rotr(x, r[0]) ^ rotr(x, r[1]) ^ rotr(x, r[2]));
  };
  Word h[8];
  std::memcpy(h, start, sizeof(h));
  blocks(data, 16 * sizeof(Word), 2 * sizeof(Word), true,
         [&](const unsigned char *p) {
           Word w[Sha::rounds];
           for (unsigned i = 0; i < 16; ++i)
             w[i] = loadBe<Word>(p + sizeof(Word) * i);
           for (unsigned i = 16; i < Sha::rounds; ++i)
             w[i] = w[i - 16] + sigma(w[i - 15], Sha::sigma0) + w[i - 7] +
                    sigma(w[i - 2], Sha::sigma1);
           Word v[8];
           std::memcpy(v, h, sizeof(v));
           for (unsigned i = 0; i < Sha::rounds; ++i) {
             Word ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
             Word t1 = v[7] + Sigma(v[4], Sha::Sigma1) + ch + Sha::K[i] + w[i];
             Word maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
             Word t2 = Sigma(v[0], Sha::Sigma0) + maj;
             std::memmove(v + 1, v, 7 * sizeof(Word)); // h = g, ..., b = a
             v[4] += t1;
             v[0] = t1 + t2;
           }
           for (unsigned i = 0; i < 8; ++i)
             h[i] += v[i];
         });
  std::string out;
  for (unsigned i = 0; i < outWords; ++i)
    putBe(out, h[i], sizeof(Word));
  return out;
}

} // namespace

std::optional<digest::Algorithm> digest::algorithmNamed(std::string_view name) {
  if (name == "MD5")
    return Algorithm::MD5;
  if (name == "SHA-1")
    return Algorithm::SHA1;
  if (name == "SHA-256")
    return Algorithm::SHA256;
  if (name == "SHA-384")
    return Algorithm::SHA384;
  if (name == "SHA-512")
    return Algorithm::SHA512;
  return std::nullopt;
}

std::string digest::compute(Algorithm algorithm, std::string_view data) {
  switch (algorithm) {
  case Algorithm::MD5:
    return md5(data);
  case Algorithm::SHA1:
    return sha1(data);
  case Algorithm::SHA256:
    return sha2<Sha256>(data, Sha256::start, 8);
  case Algorithm::SHA384:
    return sha2<Sha512>(data, Sha512::start384, 6);
  case Algorithm::SHA512:
    return sha2<Sha512>(data, Sha512::start, 8);
  }
  return std::string();
}

std::string digest::hex(std::string_view bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}
