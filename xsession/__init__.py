"""The X session and the machine, shared by the recorder and the replayer: connections to
the X server (`display`), the screen (`grab`), the images a recording stores (`images`,
`hiding`), what the server and the desktop say about input (`settings`), a private Xvfb
(`xvfb`) and private files (`files`). Import the module you need; nothing here connects to
X at import time."""
