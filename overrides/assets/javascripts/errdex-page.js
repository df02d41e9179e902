/* errdex, every page: the language switcher keeps the section the reader is at (#anchor); both languages'
 * pages have the same section ids. */
(function () {
  "use strict";
  document.querySelectorAll("a[data-errdex-lang]").forEach(function (a) {
    a.addEventListener("click", function () {
      if (window.location.hash && !a.hash) a.hash = window.location.hash;
    });
  });
})();
