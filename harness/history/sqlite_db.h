// A thin RAII layer over SQLite's C API (Debian's libsqlite3): one connection, prepared statements
// with bound values, transactions. Every failure throws DbError with SQLite's own words.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace bert::harness::history {

struct DbError : std::runtime_error {
  int code;  // SQLite's primary result code (SQLITE_BUSY, SQLITE_READONLY, SQLITE_CORRUPT, SQLITE_FULL, ...)
  DbError(int c, const std::string& what) : std::runtime_error(what), code(c) {}
};

class Stmt;

class SqliteDb {
 public:
  // Opens (creating when `create`) the file; waits up to busy_ms for another writer's lock.
  SqliteDb(const std::string& path, bool create, int busy_ms);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  void exec(const std::string& sql);  // one or more statements, no results
  Stmt prepare(const std::string& sql);
  int64_t last_insert_id() const;
  [[noreturn]] void fail(int rc, const std::string& doing) const;
  sqlite3* handle() const { return db_; }

 private:
  sqlite3* db_ = nullptr;
};

class Stmt {
 public:
  Stmt(const SqliteDb& db, sqlite3_stmt* s) : db_(&db), s_(s) {}
  Stmt(Stmt&& o) noexcept : db_(o.db_), s_(o.s_) { o.s_ = nullptr; }
  ~Stmt();
  Stmt& bind(int i, const std::string& v);
  Stmt& bind(int i, int64_t v);
  Stmt& bind(int i, int v) { return bind(i, int64_t(v)); }
  Stmt& bind(int i, bool v) { return bind(i, int64_t(v)); }
  Stmt& bind(int i, double v);
  template <typename T>
  Stmt& bind(int i, const std::optional<T>& v) {
    return v ? bind(i, *v) : bind_null(i);
  }
  Stmt& bind_null(int i);
  bool step();  // true: a row is ready; false: done
  void run() { step(); }

  std::string text(int col) const;            // "" for NULL
  int64_t integer(int col) const;             // 0 for NULL
  std::optional<int64_t> opt_integer(int col) const;
  std::optional<double> opt_real(int col) const;

 private:
  const SqliteDb* db_;
  sqlite3_stmt* s_;
};

// BEGIN IMMEDIATE ... COMMIT; rolled back when destroyed before commit().
class Transaction {
 public:
  explicit Transaction(SqliteDb& db);
  ~Transaction();
  void commit();

 private:
  SqliteDb& db_;
  bool open_ = true;
};

}  // namespace bert::harness::history
