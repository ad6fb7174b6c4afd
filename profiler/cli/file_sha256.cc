// SPDX-License-Identifier: GPL-2.0-or-later
#include "file_sha256.hh"

#include <fcntl.h>
#include <nettle/sha2.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace slurmpin {

std::string file_sha256(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return "-";
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {  // never wait on a FIFO or a device
    close(fd);
    return "-";
  }
  sha256_ctx ctx;
  sha256_init(&ctx);
  unsigned char buf[1 << 16];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      close(fd);
      return "-";
    }
    sha256_update(&ctx, static_cast<size_t>(n), buf);
  }
  close(fd);
  unsigned char digest[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx, sizeof digest, digest);
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : digest) out += kHex[b >> 4], out += kHex[b & 15];
  return out;
}

}  // namespace slurmpin
