#include "harness/history/sqlite_db.h"

#include <sqlite3.h>

namespace bert::harness::history {

SqliteDb::SqliteDb(const std::string& path, bool create, int busy_ms) {
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX;
  const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    const std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw DbError(rc & 0xff, "cannot open: " + msg);
  }
  sqlite3_extended_result_codes(db_, 0);
  sqlite3_busy_timeout(db_, busy_ms);
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

void SqliteDb::fail(int rc, const std::string& doing) const {
  throw DbError(rc & 0xff, doing + ": " + sqlite3_errmsg(db_));
}

void SqliteDb::exec(const std::string& sql) {
  char* err = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    const std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    throw DbError(rc & 0xff, msg);
  }
}

Stmt SqliteDb::prepare(const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  const int rc = sqlite3_prepare_v2(db_, sql.c_str(), int(sql.size()), &s, nullptr);
  if (rc != SQLITE_OK) fail(rc, "reading the database");
  return Stmt(*this, s);
}

int64_t SqliteDb::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }

Stmt::~Stmt() { sqlite3_finalize(s_); }

Stmt& Stmt::bind(int i, const std::string& v) {
  sqlite3_bind_text(s_, i, v.data(), int(v.size()), SQLITE_TRANSIENT);
  return *this;
}
Stmt& Stmt::bind(int i, int64_t v) {
  sqlite3_bind_int64(s_, i, v);
  return *this;
}
Stmt& Stmt::bind(int i, double v) {
  sqlite3_bind_double(s_, i, v);
  return *this;
}
Stmt& Stmt::bind_null(int i) {
  sqlite3_bind_null(s_, i);
  return *this;
}

bool Stmt::step() {
  const int rc = sqlite3_step(s_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_->fail(rc, "database statement");
}

std::string Stmt::text(int col) const {
  const unsigned char* t = sqlite3_column_text(s_, col);
  return t ? std::string(reinterpret_cast<const char*>(t), size_t(sqlite3_column_bytes(s_, col))) : std::string();
}
int64_t Stmt::integer(int col) const { return sqlite3_column_int64(s_, col); }
std::optional<int64_t> Stmt::opt_integer(int col) const {
  if (sqlite3_column_type(s_, col) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_int64(s_, col);
}
std::optional<double> Stmt::opt_real(int col) const {
  if (sqlite3_column_type(s_, col) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_double(s_, col);
}

Transaction::Transaction(SqliteDb& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }
Transaction::~Transaction() {
  if (open_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}
void Transaction::commit() {
  db_.exec("COMMIT");
  open_ = false;
}

}  // namespace bert::harness::history
