// The frame of the self-contained HTML pages: escaping, and a page with its CSS and its one small
// script inline (nothing is loaded from anywhere: no URL appears in the page).
#pragma once
#include <string>
#include <string_view>

namespace bert::harness::history {

std::string html_escape(std::string_view s);
std::string html_page(const std::string& title, const std::string& body);

}  // namespace bert::harness::history
