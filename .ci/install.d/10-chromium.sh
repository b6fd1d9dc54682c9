# Headless Chromium: the HTML report and the Prefect UI are loaded in it by the tests.
apt_install chromium chromium
